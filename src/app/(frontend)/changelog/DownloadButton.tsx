'use client'

import { useEffect, useState } from 'react'

type ErrorBody = { errors?: { code?: string; message?: string }[] }

let licensed: Promise<boolean> | undefined

/**
 * Whether the visitor is signed in with an active license of their own. Asked once per page
 * (every release's button shares the answer); the page itself stays the same for everyone.
 */
const hasActiveLicense = (): Promise<boolean> => {
  licensed ??= (async () => {
    try {
      const me = await fetch('/api/users/me', { credentials: 'same-origin', cache: 'no-store' })
      if (!me.ok) return false
      const { user } = (await me.json()) as { user?: { id?: number } | null }
      if (!user?.id) return false
      const query = `where[status][equals]=active&where[user][equals]=${encodeURIComponent(String(user.id))}&limit=1&depth=0`
      const licenses = await fetch(`/api/licenses?${query}`, { credentials: 'same-origin', cache: 'no-store' })
      if (!licenses.ok) return false
      const { docs } = (await licenses.json()) as { docs?: unknown[] }
      return Array.isArray(docs) && docs.length > 0
    } catch {
      return false
    }
  })()
  return licensed
}

/** "Download v1.2.0" for licensed visitors: asks /api/download for a signed link and follows it. */
export const DownloadButton = ({ version }: { version: string }) => {
  const [visible, setVisible] = useState(false)
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | null>(null)

  useEffect(() => {
    let active = true
    void hasActiveLicense().then((yes) => {
      if (active) setVisible(yes)
    })
    return () => {
      active = false
    }
  }, [])

  if (!visible) return null

  const download = async () => {
    setBusy(true)
    setError(null)
    try {
      const response = await fetch(`/api/download?version=${encodeURIComponent(version)}`, {
        credentials: 'same-origin',
        cache: 'no-store',
      })
      const body = (await response.json().catch(() => ({}))) as { url?: string } & ErrorBody
      // The link answers with an attachment: the browser downloads it and stays on this page.
      if (response.ok && body.url) window.location.assign(body.url)
      else setError(body.errors?.[0]?.message ?? 'The download could not be started. Please try again.')
    } catch {
      setError('The download could not be started. Check your connection and try again.')
    }
    setBusy(false)
  }

  return (
    <div className="release-download">
      <button type="button" className="button" onClick={download} disabled={busy} data-testid={`download-${version}`}>
        {busy ? 'Preparing…' : `Download v${version}`}
      </button>
      {error ? (
        <p className="release-download-error" role="alert">
          {error}
        </p>
      ) : null}
    </div>
  )
}

import { currentAccount, getJson, islands } from './dom'

type ErrorBody = { errors?: { code?: string; message?: string }[] }

/** Whether the signed-in visitor holds an active license of their own (asked once per page). */
const hasActiveLicense = async (): Promise<boolean> => {
  const account = await currentAccount()
  if (!account) return false
  const query = `where[status][equals]=active&where[user][equals]=${encodeURIComponent(String(account.id))}&limit=1&depth=0`
  const licenses = await getJson<{ docs?: unknown[] }>(`/api/licenses?${query}`)
  return Array.isArray(licenses?.docs) && licenses.docs.length > 0
}

/**
 * "Download v1.2.0" on each release of the changelog (`data-island="download" data-version`), shown to
 * visitors with an active license: asks /api/download for a signed link and follows it (the link answers
 * with an attachment, so the browser downloads it and stays on the page). The page is the same for
 * everyone; the buttons stay hidden for everyone else, and without JavaScript.
 */
export const downloadButtons = async () => {
  const blocks = islands('download')
  if (blocks.length === 0 || !(await hasActiveLicense())) return
  for (const block of blocks) {
    const version = block.dataset.version ?? ''
    const button = block.querySelector('button')!
    const error = block.querySelector<HTMLElement>('[role="alert"]')!
    const label = button.textContent
    button.addEventListener('click', () => {
      button.disabled = true
      button.textContent = 'Preparing…'
      error.hidden = true
      void (async () => {
        let message: string | null = null
        try {
          const response = await fetch(`/api/download?version=${encodeURIComponent(version)}`, {
            credentials: 'same-origin',
            cache: 'no-store',
          })
          const body = (await response.json().catch(() => ({}))) as { url?: string } & ErrorBody
          if (response.ok && body.url) window.location.assign(body.url)
          else message = body.errors?.[0]?.message ?? 'The download could not be started. Please try again.'
        } catch {
          message = 'The download could not be started. Check your connection and try again.'
        }
        if (message) {
          error.textContent = message
          error.hidden = false
        }
        button.disabled = false
        button.textContent = label
      })()
    })
    block.hidden = false
  }
}

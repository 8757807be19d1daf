'use client'

import { type ReactNode, useEffect, useState } from 'react'

import { loadPremiumBody } from './premium'

/**
 * A premium post's body for readers who hold its feature key: asked for once the cached page is in
 * the browser, so the page stays one cached page. Everyone else keeps the notice (`children`).
 */
export const PremiumBody = ({ slug, children }: { slug: string; children: ReactNode }) => {
  const [body, setBody] = useState<ReactNode | null>(null)
  useEffect(() => {
    let live = true
    loadPremiumBody(slug)
      .then((loaded) => {
        if (live && loaded) setBody(loaded)
      })
      .catch(() => undefined)
    return () => {
      live = false
    }
  }, [slug])
  return body ? <div data-testid="premium-body">{body}</div> : <>{children}</>
}

'use client'

import { useEffect } from 'react'

import type { PricingPage } from '../../../analytics/pricing-views'

const ENDPOINT = '/api/insights/pricing-views'

/** Without requestIdleCallback (Safari), this long after the page is up. */
const FALLBACK_DELAY_MS = 2_000

/**
 * The funnel's "pricing viewed" (docs/INSIGHTS.md), counted from the browser so the storefront stays
 * one cached HTML for everyone: once per page load, when the page is idle, a beacon that names the page
 * and nothing else. Renders nothing. Crawlers that run no JavaScript send none.
 */
export const PricingViewBeacon = ({ page }: { page: PricingPage }) => {
  useEffect(() => {
    const send = () => {
      const body = JSON.stringify({ page })
      if (typeof navigator.sendBeacon === 'function' && navigator.sendBeacon(ENDPOINT, body)) return
      fetch(ENDPOINT, { method: 'POST', body, keepalive: true, headers: { 'content-type': 'text/plain' } }).catch(
        () => undefined,
      )
    }
    if (typeof window.requestIdleCallback === 'function') {
      const handle = window.requestIdleCallback(send, { timeout: 10_000 })
      return () => window.cancelIdleCallback(handle)
    }
    const timer = window.setTimeout(send, FALLBACK_DELAY_MS)
    return () => window.clearTimeout(timer)
  }, [page])
  return null
}

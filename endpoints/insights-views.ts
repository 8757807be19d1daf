import type { Endpoint, PayloadRequest } from 'payload'
import { z } from 'zod'

import { PRICING_PAGES, recordPricingView } from '../src/analytics/pricing-views'
import { asRateLimited, memoryLimiterOf } from '../src/auth/rate-limit'
import { endpoint } from '../src/http/endpoint'
import { ServiceError } from '../src/http/errors'
import { addressBucket } from '../src/http/ip-address'

/** A beacon says which page it was sent from, and nothing else. */
const body = z.object({ page: z.enum(PRICING_PAGES) }).strict()

/** The largest beacon body read: `{"page":"pricing"}` is 18 bytes. */
const MAX_BEACON_BYTES = 1024

/**
 * A browser names where a POST comes from: `Origin` on every POST, and `Sec-Fetch-Site` too in every
 * current one. A beacon from another site's page would count that site's visitors, and a request with
 * neither header is not a browser on the site's pages (a script replaying beacons): both are refused.
 * Present, each must say this site: the Origin one of its own, Sec-Fetch-Site `same-origin`.
 */
const fromOwnPages = (req: PayloadRequest): boolean => {
  const origin = req.headers.get('origin')
  const site = req.headers.get('sec-fetch-site')
  if (origin === null && site === null) return false
  if (site !== null && site !== 'same-origin') return false
  return origin === null || origin === req.payload.config.serverURL || req.payload.config.csrf.includes(origin)
}

/**
 * POST /api/insights/pricing-views {page}: 204, the storefront's beacon (PricingViewBeacon.tsx) counted
 * as `pricing_viewed`, once per address, page and day. Anonymous; reads no session; JSON as text/plain
 * accepted (what navigator.sendBeacon sends).
 */
export const pricingViewsEndpoint = (): Endpoint =>
  endpoint({
    path: '/insights/pricing-views',
    method: 'post',
    body,
    beacon: { maxBytes: MAX_BEACON_BYTES },
    handler: async ({ req, body, address }) => {
      if (!fromOwnPages(req))
        throw new ServiceError(403, 'forbidden', "Pricing views are counted from the site's own pages only.")
      try {
        await memoryLimiterOf(req.payload, 'pricing_views:ip').consume(addressBucket(address))
      } catch (error) {
        throw asRateLimited(error, 'pricing views')
      }
      await recordPricingView(req, { page: body.page, address })
      return new Response(null, { status: 204 })
    },
  })

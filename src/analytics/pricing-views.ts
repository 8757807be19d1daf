import crypto from 'node:crypto'

import type { PayloadRequest } from 'payload'

import { addressBucket } from '../http/ip-address'
import { track } from './track'

/** The storefront pages whose views the funnel counts (src/app/(frontend)/storefront/[page]). */
export const PRICING_PAGES = ['home', 'pricing'] as const
export type PricingPage = (typeof PRICING_PAGES)[number]

/** Hex characters of the HMAC kept in the source id: 128 bits, no collisions among a day's visitors. */
const VIEWER_HEX = 32

/** A key derived from PAYLOAD_SECRET for this purpose only. */
const viewerKey = (secret: string) =>
  Buffer.from(crypto.hkdfSync('sha256', secret, Buffer.alloc(0), 'pricing-views/v1', 32))

/**
 * The source id of a view: `view:<UTC day>:<HMAC of day, address and page>`. One address (an IPv6
 * /64, as rate limits count it) makes one id per page a day; the address itself is not in it, and
 * the day in the key makes one day's ids unrelated to the next's.
 */
export const pricingViewSource = (
  secret: string,
  view: { day: string; address: string | null; page: PricingPage },
): string => {
  const viewer = crypto
    .createHmac('sha256', viewerKey(secret))
    .update(`${view.day}|${addressBucket(view.address)}|${view.page}`)
    .digest('hex')
  return `view:${view.day}:${viewer.slice(0, VIEWER_HEX)}`
}

/**
 * Record the funnel's `pricing_viewed` (docs/INSIGHTS.md): the page only, never a user, an email or
 * an address; at most once per address, page and UTC day (repeats insert nothing).
 */
export const recordPricingView = async (
  req: PayloadRequest,
  view: { page: PricingPage; address: string | null; now?: Date },
): Promise<void> => {
  const now = view.now ?? new Date()
  const day = now.toISOString().slice(0, 10)
  await track(req, {
    name: 'pricing_viewed',
    sourceId: pricingViewSource(req.payload.secret, { day, address: view.address, page: view.page }),
    properties: { page: view.page },
    occurredAt: now,
  })
}

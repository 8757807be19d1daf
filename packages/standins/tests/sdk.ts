import Stripe from 'stripe'

import type { ProcessorStandIn } from '../src/processor'

/**
 * A stand-in of a test file's own (its objects and webhooks out of the other files' exact lists): the
 * catalogue these files sell, and the real SDK pointed at it.
 */
const STANDIN_PRICE_IDS = {
  /** $149.00 one-time, usd. */
  lifetime: 'price_standin_standard_lifetime',
  /** $299.00 one-time, usd. */
  ultimate: 'price_standin_ultimate_lifetime',
  monthly: 'price_standin_pro_monthly',
} as const

/** The catalogue, with a €50.00 one-time price under `euroId`. */
export const standInCatalogue = (euroId: string) => [
  { id: STANDIN_PRICE_IDS.lifetime, unitAmount: 14900, type: 'one_time' as const, productName: 'Standard (lifetime)' },
  { id: STANDIN_PRICE_IDS.ultimate, unitAmount: 29900, type: 'one_time' as const, productName: 'Ultimate (lifetime)' },
  { id: euroId, unitAmount: 5000, currency: 'eur', type: 'one_time' as const, productName: 'Euro plan' },
  {
    id: STANDIN_PRICE_IDS.monthly,
    unitAmount: 2900,
    type: 'recurring' as const,
    interval: 'month' as const,
    productName: 'Pro (monthly)',
  },
]

/** The real SDK at the API version it pins, against the stand-in, with no retries (a test sees every answer). */
export const sdkFor = (standIn: ProcessorStandIn, secretKey: string) =>
  new Stripe(secretKey, {
    host: '127.0.0.1',
    port: standIn.port,
    protocol: 'http',
    apiVersion: Stripe.API_VERSION,
    maxNetworkRetries: 0,
  })

/**
 * The id an expandable field holds as the API answers it unexpanded (the id itself), as a string:
 * `String(field)` without an object's `[object Object]`; null and undefined read as before.
 */
export const idIn = (field: string | { id: string } | null | undefined): string =>
  field == null || typeof field === 'string' ? String(field) : field.id

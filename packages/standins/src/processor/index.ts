/**
 * The processor stand-in: a Stripe-compatible HTTP server for integration tests and offline development.
 * The real `stripe` SDK talks to it over HTTP; it serves hosted checkout and portal pages and delivers
 * signed webhook events in a realistic, shuffled order.
 */
export { startProcessorStandIn } from './server'
export { DEFAULT_PRICES } from './prices'
export type { FillInEntries, PayOutcome, ProcessorStandIn, PromotionsConsent } from './types'

import type Stripe from 'stripe'

import { ServiceError } from '../../http/errors'

/** How far a signature's timestamp may be from our clock, either way. */
const SIGNATURE_TOLERANCE_SECONDS = 300

const invalid = (message: string) => new ServiceError(400, 'invalid_signature', message)

/**
 * Verify a webhook delivery and parse its event. The header is `t=<unix>,v1=<hex>[,v1=<hex>...]`
 * (several v1 values while the processor rolls its secret). We accept any of our secrets (several,
 * comma-separated, while we roll ours), and refuse timestamps more than 5 minutes old or ahead
 * (the SDK only checks the past).
 */
export const verifyEvent = (
  processor: Stripe,
  rawBody: string,
  header: string | null,
  secrets: string[],
  nowSeconds = Math.floor(Date.now() / 1000),
): Stripe.Event => {
  if (!header) throw invalid('The Stripe-Signature header is missing.')
  const parts = header.split(',').map((part) => part.trim().split('='))
  const timestamp = Number(parts.find(([key]) => key === 't')?.[1])
  const signatures = parts.filter(([key, value]) => key === 'v1' && value && /^[0-9a-f]{64}$/i.test(value))
  if (!Number.isInteger(timestamp) || timestamp <= 0 || signatures.length === 0) {
    throw invalid('The Stripe-Signature header is malformed.')
  }
  if (Math.abs(nowSeconds - timestamp) > SIGNATURE_TOLERANCE_SECONDS) {
    throw invalid('The signature timestamp is too far from the current time.')
  }
  for (const secret of secrets) {
    try {
      // One clock for both checks: ours above and the SDK's (receivedAt).
      return processor.webhooks.constructEvent(
        rawBody,
        header,
        secret,
        SIGNATURE_TOLERANCE_SECONDS,
        undefined,
        nowSeconds,
      )
    } catch {
      // try the next secret
    }
  }
  throw invalid('No signature matches the webhook secret.')
}

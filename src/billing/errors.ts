import Stripe from 'stripe'

import { ServiceError } from '../http/errors'

/**
 * What a processor failure means for our caller: a request we got wrong is a 4xx of ours; the
 * processor being down, slow, rate limiting or refusing our key is a 502 `processor_unavailable`.
 */
export const processorFailure = (error: unknown, context: { priceId?: string } = {}): ServiceError => {
  if (error instanceof ServiceError) return error
  if (error instanceof Stripe.errors.StripeInvalidRequestError) {
    if (/similar object exists in (live|test) mode/i.test(error.message)) {
      return new ServiceError(
        400,
        'processor_mode_mismatch',
        'This price belongs to the other processor mode (test and live are never mixed).',
      )
    }
    if (error.code === 'resource_missing' && context.priceId) {
      return new ServiceError(400, 'unknown_price', `The price ${context.priceId} is not for sale.`)
    }
  }
  return new ServiceError(
    502,
    'processor_unavailable',
    'The payment processor is not available right now. Please try again.',
  )
}

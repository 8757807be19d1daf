import type { RegisteredHandler } from '../define'
import { chargeDispute } from './charge-dispute'
import { chargeRefunded } from './charge-refunded'
import { checkoutExpired } from './checkout-expired'
import { checkoutSession } from './checkout-session'
import { customerSubscription } from './customer-subscription'
import { invoicePayment } from './invoice-payment'
import { paymentIntentSucceeded } from './payment-intent-succeeded'

const HANDLERS = [
  checkoutSession,
  checkoutExpired,
  customerSubscription,
  invoicePayment,
  paymentIntentSucceeded,
  chargeRefunded,
  chargeDispute,
]

/** The handler of each event type the service applies; every other type is recorded as ignored. */
export const EVENT_HANDLERS: Partial<Record<string, RegisteredHandler>> = {}
for (const handler of HANDLERS) {
  for (const type of handler.types) {
    if (EVENT_HANDLERS[type]) throw new Error(`two handlers for ${type}`)
    EVENT_HANDLERS[type] = handler
  }
}

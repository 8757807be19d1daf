import type Stripe from 'stripe'

import { closeDispute, openDispute, refundCharge } from './charges'
import { fillInCheckoutSession } from './checkout-entries'
import { expireCheckoutSession } from './checkout-expiry'
import { payCheckoutSession } from './checkout-payment'
import { expireRecoveryUrl } from './checkout-recovery'
import type { Processor } from './context'
import { cancelSubscription, failInvoicePayment, renewSubscription, updateSubscription } from './subscriptions'
import type { ProcessorStandIn } from './types'

export type ProcessorActions = Pick<
  ProcessorStandIn,
  | 'pay'
  | 'fillIn'
  | 'expire'
  | 'expireRecovery'
  | 'refund'
  | 'openDispute'
  | 'closeDispute'
  | 'updateSubscription'
  | 'cancelSubscription'
  | 'failInvoicePayment'
  | 'renewSubscription'
>

/**
 * What happens on the processor's side, outside any API call: each action changes the state, then
 * delivers the events it caused and resolves with them in the order they were sent.
 */
export const processorActions = (processor: Processor): ProcessorActions => {
  const deliver = (events: Stripe.Event[]) => processor.events.deliver(events)
  return {
    pay: async (sessionId, options) => {
      const sent: Stripe.Event[] = []
      for (const phase of payCheckoutSession(processor, sessionId, options)) sent.push(...(await deliver(phase)))
      return sent
    },
    fillIn: (sessionId, entries) => fillInCheckoutSession(processor, sessionId, entries),
    expire: async (sessionId) => deliver(expireCheckoutSession(processor, sessionId).events),
    expireRecovery: (sessionId) => expireRecoveryUrl(processor, sessionId),
    refund: async (id, amount) => deliver(refundCharge(processor, id, amount).events),
    openDispute: async (chargeId) => deliver(openDispute(processor, chargeId).events),
    closeDispute: async (disputeId, outcome) => deliver(closeDispute(processor, disputeId, outcome).events),
    updateSubscription: async (id, changes) => deliver(updateSubscription(processor, id, changes).events),
    cancelSubscription: async (id) => deliver(cancelSubscription(processor, id).events),
    failInvoicePayment: async (id) => deliver(failInvoicePayment(processor, id).events),
    renewSubscription: async (id) => deliver(renewSubscription(processor, id).events),
  }
}

import type Stripe from 'stripe'

import type { Origin, Processor } from './context'
import { invalidRequest } from './errors'
import { formatAmount } from './money'
import { buildDispute, buildRefund } from './objects/payment'
import { requireCharge, requireDispute, requirePaymentIntent } from './state'

type Result<T> = { events: Stripe.Event[] } & T

/** A refund names a charge or the payment intent whose charge it refunds. */
const chargeToRefund = (processor: Processor, id: string): Stripe.Charge => {
  if (!id.startsWith('pi_')) return requireCharge(processor.state, id, { param: 'charge', status: 400 })
  const paymentIntent = requirePaymentIntent(processor.state, id, { param: 'payment_intent', status: 400 })
  const chargeId =
    typeof paymentIntent.latest_charge === 'string' ? paymentIntent.latest_charge : paymentIntent.latest_charge?.id
  const charge = chargeId ? processor.state.charges.get(chargeId) : undefined
  if (!charge || paymentIntent.status !== 'succeeded') {
    throw invalidRequest(`This PaymentIntent (${id}) does not have a successful charge to refund.`, {
      param: 'payment_intent',
    })
  }
  return charge
}

const hasOpenOrLostDispute = (processor: Processor, charge: Stripe.Charge): boolean =>
  [...processor.state.disputes.values()].some((dispute) => dispute.charge === charge.id && dispute.status !== 'won')

/** Full when `amount` is omitted: `refund.created` and `charge.refunded`, whose charge shows the refunded total. */
export const refundCharge = (
  processor: Processor,
  id: string,
  amount: number | undefined,
  origin: Origin = {},
): Result<{ refund: Stripe.Refund }> => {
  const charge = chargeToRefund(processor, id)
  const remaining = charge.amount - charge.amount_refunded
  if (remaining === 0) {
    throw invalidRequest(`Charge ${charge.id} has already been refunded.`, { code: 'charge_already_refunded' })
  }
  if (hasOpenOrLostDispute(processor, charge)) {
    throw invalidRequest(`Charge ${charge.id} has been charged back; cannot issue a refund.`, {
      code: 'charge_disputed',
    })
  }
  const refunding = amount ?? remaining
  if (refunding < 1) throw invalidRequest('This value must be greater than or equal to 1.', { param: 'amount' })
  if (refunding > remaining) {
    const format = (value: number) => formatAmount(value, charge.currency)
    throw invalidRequest(
      `Refund amount (${format(refunding)}) is greater than unrefunded amount on charge (${format(remaining)})`,
      { param: 'amount', code: 'amount_too_large' },
    )
  }
  const refund = buildRefund(charge, refunding)
  processor.state.refunds.set(refund.id, refund)
  charge.amount_refunded += refunding
  charge.refunded = charge.amount_refunded === charge.amount
  charge.refunds?.data.unshift(refund)
  return {
    refund,
    events: [
      processor.events.create('refund.created', refund, origin),
      processor.events.create('charge.refunded', charge, origin),
    ],
  }
}

/** The cardholder disputes the charge: `charge.dispute.created`, the dispute waiting for evidence. */
export const openDispute = (processor: Processor, chargeId: string): Result<{ dispute: Stripe.Dispute }> => {
  const charge = requireCharge(processor.state, chargeId, { param: 'charge', status: 400 })
  if (charge.disputed) throw invalidRequest(`Charge ${charge.id} is already disputed.`, { param: 'charge' })
  const dispute = buildDispute(processor, charge)
  processor.state.disputes.set(dispute.id, dispute)
  charge.disputed = true
  return { dispute, events: [processor.events.create('charge.dispute.created', dispute)] }
}

/** The bank decided: `charge.dispute.closed` with status `won` or `lost`. */
export const closeDispute = (
  processor: Processor,
  disputeId: string,
  outcome: 'won' | 'lost',
): Result<{ dispute: Stripe.Dispute }> => {
  const dispute = requireDispute(processor.state, disputeId)
  if (dispute.status === 'won' || dispute.status === 'lost') {
    throw invalidRequest(`Dispute ${dispute.id} is already closed (${dispute.status}).`, { param: 'id' })
  }
  dispute.status = outcome
  return { dispute, events: [processor.events.create('charge.dispute.closed', dispute)] }
}

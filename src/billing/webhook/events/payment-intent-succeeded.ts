import { track } from '../../../analytics/track'
import { relationId } from '../../../db/relations'
import { defineHandler } from '../define'
import {
  changeFactsOf,
  changeOfPaymentIntent,
  findPayment,
  isOneTimePayment,
  loadPaymentIntent,
  recordLicenseChangePayment,
  recordOneTimePayment,
  savePayment,
} from '../steps'

/**
 * A one-time payment went through: its purchase (and license) recorded, and its payment_history row
 * written once; or, for an upgrade or a renewal, the change of its license. A subscription's payment intent is left to its invoice's events.
 */
export const paymentIntentSucceeded = defineHandler(['payment_intent.succeeded'], {
  load: (processor, event) => loadPaymentIntent(processor, event.data.object.id),
  apply: async (context, loaded) => {
    const { paymentIntent, charge } = loaded
    const change = changeOfPaymentIntent(paymentIntent)
    if (change) {
      await recordLicenseChangePayment(context, changeFactsOf(change, loaded))
      return
    }
    if (!isOneTimePayment(paymentIntent)) return
    const { purchase } = await recordOneTimePayment(context, loaded)
    const { req } = context
    const existing = await findPayment(req, paymentIntent.id)
    if (!existing) {
      await savePayment(req, paymentIntent.id, existing, {
        user: relationId(purchase.user),
        email: purchase.email,
        amount: purchase.amount ?? paymentIntent.amount,
        currency: paymentIntent.currency,
        paymentType: 'one_time',
        status: 'succeeded',
        refundedAmount: purchase.refundedAmount ?? 0,
        disputeStatus: purchase.disputeStatus ?? 'none',
        plan: relationId(purchase.plan),
        invoiceUrl: charge?.receipt_url ?? null,
        paidAt: new Date(paymentIntent.created * 1000).toISOString(),
      })
    }
    await track(req, {
      name: 'payment_succeeded',
      userId: relationId(purchase.user),
      email: purchase.email,
      properties: { amount: purchase.amount, currency: purchase.currency },
      sourceId: paymentIntent.id,
    })
  },
})

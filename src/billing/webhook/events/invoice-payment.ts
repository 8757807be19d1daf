import { track } from '../../../analytics/track'
import { relationId } from '../../../db/relations'
import { applySubscriptionChargebacks } from '../../purchases'
import { defineHandler } from '../define'
import { idOf } from '../../processor'
import {
  applySubscription,
  loadInvoiceSubscription,
  loadPaymentIntent,
  recordInvoicePayment,
  recordOneTimeInvoice,
} from '../steps'

/**
 * An invoice paid or not (`invoice.paid`, `invoice.payment_succeeded|failed`). A subscription's: the
 * subscription brought up to date and the invoice's payment_history row recorded; a failed one is
 * logged, the status comes from the subscription. A one-time payment's invoice (`invoice_creation`):
 * it completes that payment's row (src/billing/webhook/steps.ts, recordOneTimeInvoice).
 */
export const invoicePayment = defineHandler(['invoice.paid', 'invoice.payment_succeeded', 'invoice.payment_failed'], {
  load: async (processor, event) => {
    const invoice = event.data.object
    const subscription = await loadInvoiceSubscription(processor, invoice)
    if (subscription || event.type === 'invoice.payment_failed' || !invoice.id)
      return { invoice, subscription, oneTime: null }
    // A one-time invoice names no payment: the processor's invoice payments trace it to its payment intent.
    const payments = await processor.invoicePayments.list({ invoice: invoice.id, limit: 1 })
    const paymentIntentId = idOf(
      (payments.data[0]?.payment as { payment_intent?: string | { id: string } } | undefined)?.payment_intent ?? null,
    )
    return {
      invoice,
      subscription,
      oneTime: paymentIntentId ? await loadPaymentIntent(processor, paymentIntentId) : null,
    }
  },
  apply: async (context, { invoice, subscription, oneTime }) => {
    const { req, event, settings } = context
    if (!subscription && oneTime) {
      await recordOneTimeInvoice(context, invoice, oneTime)
      return
    }
    const succeeded = event.type !== 'invoice.payment_failed'
    const synced = subscription ? await applySubscription(context, subscription) : null
    const owner = synced?.subscription ?? null
    const userId = owner ? relationId(owner.user) : null
    const email = owner?.email ?? invoice.customer_email ?? null
    if (!succeeded) {
      req.payload.logger.warn({
        msg: 'invoice payment failed',
        invoice: invoice.id,
        subscription: subscription?.subscription.id,
        attempt: invoice.attempt_count,
      })
    }
    const payment = await recordInvoicePayment(context, invoice, owner, { succeeded })
    // A newly paid invoice is now the latest: whether "the latest was refunded" still holds changes.
    if (owner) await applySubscriptionChargebacks(req, owner, settings)
    await track(req, {
      name: succeeded ? 'payment_succeeded' : 'payment_failed',
      userId,
      email,
      properties: {
        invoiceId: invoice.id,
        amount: payment.amount,
        currency: invoice.currency,
        attempt: invoice.attempt_count,
      },
      sourceId: succeeded ? invoice.id : event.id,
    })
  },
})

import { track } from '../../../analytics/track'
import { relationId } from '../../../db/relations'
import { applySubscriptionChargebacks } from '../../purchases'
import { defineHandler } from '../define'
import { applySubscription, loadInvoiceSubscription, recordInvoicePayment } from '../steps'

/**
 * An invoice paid or not (`invoice.payment_succeeded|failed`): its subscription brought up to date and
 * its payment_history row recorded; a failed one is logged, the status comes from the subscription.
 */
export const invoicePayment = defineHandler(['invoice.payment_succeeded', 'invoice.payment_failed'], {
  load: async (processor, event) => {
    const invoice = event.data.object
    return { invoice, subscription: await loadInvoiceSubscription(processor, invoice) }
  },
  apply: async (context, { invoice, subscription }) => {
    const { req, event, settings } = context
    const succeeded = event.type === 'invoice.payment_succeeded'
    const synced = subscription ? await applySubscription(context, subscription) : null
    const owner = synced?.subscription ?? null
    const userId = owner ? relationId(owner.user) : null
    const email = owner?.email ?? invoice.customer_email ?? null
    if (!succeeded) {
      req.payload.logger.warn({ msg: 'invoice payment failed', invoice: invoice.id, subscription: subscription?.subscription.id, attempt: invoice.attempt_count })
    }
    const payment = await recordInvoicePayment(context, invoice, owner, { succeeded })
    // A newly paid invoice is now the latest: whether "the latest was refunded" still holds changes.
    if (owner) await applySubscriptionChargebacks(req, owner, settings)
    await track(req, {
      name: succeeded ? 'payment_succeeded' : 'payment_failed',
      userId,
      email,
      properties: { invoiceId: invoice.id, amount: payment.amount, currency: invoice.currency, attempt: invoice.attempt_count },
      sourceId: succeeded ? invoice.id! : event.id,
    })
  },
})

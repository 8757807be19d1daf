import type Stripe from 'stripe'

import { lineItemsOf } from './checkout-sessions'
import type { Processor } from './context'
import { html, type Html } from './html'
import { formatAmount } from './money'
import { productName, type LegacyInvoice } from './state'
import type { PayOutcome } from './types'

export const OUTCOMES: { value: PayOutcome; label: string; modes: Stripe.Checkout.Session.Mode[] }[] = [
  { value: 'succeeded', label: 'Card payment succeeds', modes: ['payment', 'subscription'] },
  { value: 'async_succeeded', label: 'Bank debit, succeeds later', modes: ['payment'] },
  { value: 'async_failed', label: 'Bank debit, fails later', modes: ['payment'] },
  { value: 'declined', label: 'Card is declined', modes: ['payment', 'subscription'] },
]

const date = (seconds: number | null | undefined): string =>
  seconds ? new Date(seconds * 1000).toISOString().slice(0, 10) : '-'

export const messageView = (title: string, message: string, options: { error?: boolean } = {}): Html =>
  html`<h1>${title}</h1><p${options.error ? html` class="error"` : ''}>${message}</p>`

/** The plan, its price and the "Pay" form; the outcome choice stands in for the customer's payment method. */
export const checkoutView = (
  processor: Processor,
  session: Stripe.Checkout.Session,
  options: { email?: string; error?: string } = {},
): Html => {
  const rows = lineItemsOf(processor, session.id).map((item) => {
    const per = item.price?.recurring ? ` / ${item.price.recurring.interval}` : ''
    const amount = `${formatAmount(item.amount_total, item.currency)}${per}`
    return html`<tr><td>${item.description}</td><td>${item.quantity}</td><td>${amount}</td></tr>`
  })
  const customer = typeof session.customer === 'string' ? processor.state.customers.get(session.customer) : undefined
  const email = options.email ?? session.customer_email ?? customer?.email ?? ''
  // With nothing to pay (a full discount) there is no payment method, so nothing to decline or debit.
  const free = session.mode === 'payment' && session.amount_total === 0 && (session.discounts?.length ?? 0) > 0
  const outcomes = OUTCOMES.filter(
    (outcome) =>
      session.mode !== null && outcome.modes.includes(session.mode) && (!free || outcome.value === 'succeeded'),
  )
  const discount = session.total_details?.amount_discount ?? 0
  const currency = session.currency ?? 'usd'
  const choices = outcomes.map(
    (outcome, index) =>
      html`<label><input type="radio" name="outcome" value="${outcome.value}"${index === 0 ? html` checked` : ''}> ${outcome.label}</label>`,
  )
  return html`<h1>${session.mode === 'subscription' ? 'Subscribe' : 'Pay'}</h1>
${options.error ? html`<p class="error">${options.error}</p>` : ''}
<table><tr><th>Item</th><th>Qty</th><th>Amount</th></tr>${rows}</table>
${discount > 0 ? html`<p class="discount">Discount: -${formatAmount(discount, currency)}</p>` : ''}
<p class="total">Total: ${formatAmount(session.amount_total ?? 0, currency)}</p>
<form method="post" action="/checkout/${session.id}/pay">
<label for="email">Email</label>
<input type="email" id="email" name="email" value="${email}" required>
<fieldset><legend>Outcome</legend>${choices}</fieldset>
<button type="submit">Pay</button>
</form>
<form method="post" action="/checkout/${session.id}/cancel"><button type="submit">Cancel</button></form>`
}

/** The customer's subscriptions, each with a "Cancel subscription" button (at the period's end), and the way back. */
export const portalView = (processor: Processor, portal: Stripe.BillingPortal.Session): Html => {
  const customer = processor.state.customers.get(portal.customer)
  const subscriptions = [...processor.state.subscriptions.values()].filter(
    (subscription) => subscription.customer === portal.customer,
  )
  const rows = subscriptions.map((subscription) => {
    const names = subscription.items.data.map((item) => productName(processor.state, item.price)).join(', ')
    const period = `${subscription.cancel_at_period_end ? 'ends' : 'renews'} ${date(subscription.current_period_end)}`
    const action = `/portal/${portal.id}/subscriptions/${subscription.id}/cancel`
    const cancel =
      subscription.status === 'canceled' || subscription.cancel_at_period_end
        ? ''
        : html`<form method="post" action="${action}"><button type="submit">Cancel subscription</button></form>`
    return html`<tr><td>${names}</td><td>${subscription.status}</td><td>${period}</td><td>${cancel}</td></tr>`
  })
  return html`<h1>Billing</h1>
<p>${customer?.email ?? portal.customer}</p>
<table><tr><th>Plan</th><th>Status</th><th>Period</th><th></th></tr>${rows}</table>
${subscriptions.length === 0 ? html`<p>No subscriptions.</p>` : ''}
${portal.return_url ? html`<p><a href="${portal.return_url}">Return</a></p>` : ''}`
}

export const invoiceView = (invoice: LegacyInvoice): Html => {
  const rows = invoice.lines.data.map(
    (line) => html`<tr><td>${line.description}</td><td>${formatAmount(line.amount, line.currency)}</td></tr>`,
  )
  const paid = `${formatAmount(invoice.amount_paid, invoice.currency)} paid on ${date(invoice.status_transitions.paid_at)}`
  return html`<h1>Invoice ${invoice.number ?? invoice.id}</h1>
<p>Status: ${invoice.status}. Billed to ${invoice.customer_email}.</p>
<table>${rows}</table>
<p class="total">Total: ${formatAmount(invoice.total, invoice.currency)}; ${paid}</p>`
}

export const receiptView = (charge: Stripe.Charge): Html => {
  const refunded = formatAmount(charge.amount_refunded, charge.currency)
  return html`<h1>Receipt</h1>
<p>${formatAmount(charge.amount, charge.currency)} paid on ${date(charge.created)} by ${charge.billing_details.email}.</p>
${charge.amount_refunded > 0 ? html`<p>Refunded: ${refunded}</p>` : ''}`
}

import type Stripe from 'stripe'

import { collectsPromotions, entriesOf } from './checkout-entries'
import { lineItemsOf } from './checkout-sessions'
import type { Processor } from './context'
import { html, type Html } from './html'
import { formatAmount } from './money'
import { describeTax } from './objects/billing'
import { productName, type LegacyInvoice } from './state'
import { DEFAULT_COUNTRY, taxOn, VAT_RATES } from './tax'
import type { PayOutcome } from './types'

/** The tax ID types the hosted checkout offers (Stripe's form offers one per country). */
export const TAX_ID_TYPES = ['eu_vat', 'gb_vat', 'ch_vat', 'us_ein', 'au_abn'] as const

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

/**
 * The tax line before payment: the calculation, when the customer's address already gave it, else what
 * the default country would pay (the buyer's country decides at payment).
 */
const taxPreview = (processor: Processor, session: Stripe.Checkout.Session, country: string) => {
  if (session.automatic_tax?.status === 'complete') {
    return { label: 'Tax', amount: session.total_details?.amount_tax ?? 0 }
  }
  const percentage = VAT_RATES[country] ?? 0
  const amount = lineItemsOf(processor, session.id).reduce(
    (sum, item) => sum + taxOn(item.amount_subtotal - item.amount_discount, percentage),
    0,
  )
  return { label: `Tax (${percentage}% for ${country}; calculated for the country you enter)`, amount }
}

/** Country, business name and tax ID, as far as the session collects them. */
const taxFields = (session: Stripe.Checkout.Session, country: string): Html => {
  const address =
    session.automatic_tax?.enabled || session.tax_id_collection?.enabled
      ? html`<label for="country">Country (two letters)</label>
<input id="country" name="country" value="${country}" maxlength="2" pattern="[A-Za-z]{2}" required>`
      : ''
  if (!session.tax_id_collection?.enabled) return html`${address}`
  const types = TAX_ID_TYPES.map((type) => html`<option value="${type}">${type}</option>`)
  const required = session.tax_id_collection.required === 'if_supported' ? ' (required in taxed countries)' : ''
  return html`${address}
<fieldset><legend>Purchasing as a business${required}</legend>
<label for="business_name">Business name</label>
<input id="business_name" name="business_name">
<label for="tax_id_type">Tax ID type</label>
<select id="tax_id_type" name="tax_id_type">${types}</select>
<label for="tax_id">Tax ID</label>
<input id="tax_id" name="tax_id">
</fieldset>`
}

/**
 * With `consent_collection[promotions]=auto`: Stripe's promotional-emails checkbox, and "Save my details",
 * which keeps the email and the answer without paying (the form posted to the page itself).
 */
const promotionsFields = (session: Stripe.Checkout.Session, ticked: boolean) => {
  if (!collectsPromotions(session)) return { checkbox: '', save: '' }
  return {
    checkbox: html`<label><input type="checkbox" name="promotions" value="opt_in"${ticked ? html` checked` : ''}> Keep me updated with news and personalized offers</label>`,
    save: html`<button type="submit" formaction="/checkout/${session.id}" formnovalidate>Save my details</button>`,
  }
}

/** The plan, its price and the "Pay" form; the outcome choice stands in for the customer's payment method. */
export const checkoutView = (
  processor: Processor,
  session: Stripe.Checkout.Session,
  options: { email?: string; error?: string; notice?: string } = {},
): Html => {
  const rows = lineItemsOf(processor, session.id).map((item) => {
    const per = item.price?.recurring ? ` / ${item.price.recurring.interval}` : ''
    // The price before the discount, which its own line below takes off (as Stripe's page shows it).
    const amount = `${formatAmount(item.amount_subtotal, item.currency)}${per}`
    return html`<tr><td>${item.description}</td><td>${item.quantity}</td><td>${amount}</td></tr>`
  })
  const customer = typeof session.customer === 'string' ? processor.state.customers.get(session.customer) : undefined
  const typed = entriesOf(processor, session.id)
  const email = options.email ?? typed.email ?? session.customer_email ?? customer?.email ?? ''
  const promotions = promotionsFields(session, typed.promotions === 'opt_in')
  const country = customer?.address?.country ?? DEFAULT_COUNTRY
  // With nothing to pay (a full discount) there is no payment method, so nothing to decline or debit.
  const free = session.mode === 'payment' && session.amount_total === 0 && (session.discounts?.length ?? 0) > 0
  const outcomes = OUTCOMES.filter(
    (outcome) =>
      session.mode !== null && outcome.modes.includes(session.mode) && (!free || outcome.value === 'succeeded'),
  )
  const discount = session.total_details?.amount_discount ?? 0
  const currency = session.currency ?? 'usd'
  const tax = session.automatic_tax?.enabled ? taxPreview(processor, session, country) : null
  // Before the calculation is complete the session's total has no tax yet; the page shows it with the preview.
  const total = (session.amount_total ?? 0) + (tax && session.automatic_tax?.status !== 'complete' ? tax.amount : 0)
  const choices = outcomes.map(
    (outcome, index) =>
      html`<label><input type="radio" name="outcome" value="${outcome.value}"${index === 0 ? html` checked` : ''}> ${outcome.label}</label>`,
  )
  return html`<h1>${session.mode === 'subscription' ? 'Subscribe' : 'Pay'}</h1>
${options.error ? html`<p class="error">${options.error}</p>` : ''}
${options.notice ? html`<p class="notice">${options.notice}</p>` : ''}
<table><tr><th>Item</th><th>Qty</th><th>Amount</th></tr>${rows}</table>
${discount > 0 ? html`<p class="discount">Discount: -${formatAmount(discount, currency)}</p>` : ''}
${tax ? html`<p class="tax">${tax.label}: ${formatAmount(tax.amount, currency)}</p>` : ''}
<p class="total">Total: ${formatAmount(total, currency)}</p>
<form method="post" action="/checkout/${session.id}/pay">
<label for="email">Email</label>
<input type="email" id="email" name="email" value="${email}" required>
${promotions.checkbox}
${taxFields(session, country)}
<fieldset><legend>Outcome</legend>${choices}</fieldset>
<button type="submit">Pay</button>
${promotions.save}
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

const taxRateById = (processor: Processor) => (id: string) =>
  [...processor.state.taxRates.values()].find((rate) => rate.id === id)

/** What an invoice says; its hosted page and its PDF show the same. */
const invoiceSummary = (processor: Processor, invoice: LegacyInvoice) => {
  const money = (amount: number) => formatAmount(amount, invoice.currency)
  const discount = (invoice.total_discount_amounts ?? []).reduce((sum, entry) => sum + entry.amount, 0)
  const tax = (invoice.total_taxes ?? []).reduce((sum, entry) => sum + entry.amount, 0)
  const taxLabel = describeTax(invoice, taxRateById(processor))
  const totals: [string, string][] = [
    ['Subtotal', money(invoice.subtotal)],
    ...(discount > 0 ? [['Discount', `-${money(discount)}`] as [string, string]] : []),
    ...(taxLabel ? [[taxLabel, money(tax)] as [string, string]] : []),
    ['Total', money(invoice.total)],
    ['Amount paid', money(invoice.amount_paid)],
  ]
  const billedTo = [
    invoice.customer_name,
    invoice.customer_email,
    invoice.customer_address?.country ? `Country: ${invoice.customer_address.country}` : null,
    ...(invoice.customer_tax_ids ?? []).map((taxId) => `Tax ID (${taxId.type}): ${taxId.value ?? ''}`),
  ].filter((line): line is string => Boolean(line))
  return {
    title: `Invoice ${invoice.number ?? invoice.id}`,
    status:
      invoice.status === 'paid' ? `Paid on ${date(invoice.status_transitions.paid_at)}` : `Status: ${invoice.status}`,
    issued: `Date of issue: ${date(invoice.effective_at ?? invoice.created)}`,
    billedTo,
    lines: invoice.lines.data.map((line) => ({
      description: line.description ?? '',
      quantity: line.quantity ?? 1,
      amount: money(line.amount),
    })),
    totals,
    notes: [
      invoice.description,
      ...(invoice.custom_fields ?? []).map((field) => `${field.name}: ${field.value}`),
      invoice.footer,
    ].filter((line): line is string => Boolean(line)),
  }
}

export const invoiceView = (processor: Processor, invoice: LegacyInvoice): Html => {
  const summary = invoiceSummary(processor, invoice)
  const rows = summary.lines.map(
    (line) => html`<tr><td>${line.description}</td><td>${line.quantity}</td><td>${line.amount}</td></tr>`,
  )
  const totals = summary.totals.map(
    ([label, amount]) => html`<tr class="${label === 'Total' ? 'total' : ''}"><td>${label}</td><td>${amount}</td></tr>`,
  )
  return html`<h1>${summary.title}</h1>
<p>${summary.status}. ${summary.issued}.</p>
<p>Billed to:<br>${summary.billedTo.map((line) => html`${line}<br>`)}</p>
<table><tr><th>Description</th><th>Qty</th><th>Amount</th></tr>${rows}</table>
<table>${totals}</table>
${summary.notes.map((note) => html`<p>${note}</p>`)}
${invoice.invoice_pdf ? html`<p><a href="${invoice.invoice_pdf}">Download PDF</a></p>` : ''}`
}

/** The invoice PDF's text lines: title first. */
export const invoicePdfLines = (processor: Processor, invoice: LegacyInvoice): string[] => {
  const summary = invoiceSummary(processor, invoice)
  return [
    summary.title,
    summary.status,
    summary.issued,
    '',
    'Billed to:',
    ...summary.billedTo,
    '',
    ...summary.lines.map((line) => `${line.description} (qty ${line.quantity}): ${line.amount}`),
    '',
    ...summary.totals.map(([label, amount]) => `${label}: ${amount}`),
    ...(summary.notes.length > 0 ? ['', ...summary.notes] : []),
    '',
    'Issued by the payment processor stand-in: not a real invoice.',
  ]
}

export const receiptView = (charge: Stripe.Charge): Html => {
  const refunded = formatAmount(charge.amount_refunded, charge.currency)
  return html`<h1>Receipt</h1>
<p>${formatAmount(charge.amount, charge.currency)} paid on ${date(charge.created)} by ${charge.billing_details.email}.</p>
${charge.amount_refunded > 0 ? html`<p>Refunded: ${refunded}</p>` : ''}`
}

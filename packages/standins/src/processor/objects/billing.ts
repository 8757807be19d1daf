import type Stripe from 'stripe'

import type { Processor } from '../context'
import { fromFixture } from '../fixtures'
import { addInterval, daysFrom, newId, nowSeconds } from '../ids'
import { formatAmount } from '../money'
import type { LegacyInvoice, LegacySubscription } from '../state'
import { legacyTaxEntry, lineTax, taxEntry, type LineTax, type TaxRule } from '../tax'

export type Period = { start: number; end: number }

/** Where a recurring price's billing period starting at `start` ends. */
export const periodFrom = (price: Stripe.Price, start: number): Period => {
  const recurring = price.recurring
  if (!recurring) throw new Error(`price ${price.id} is not recurring`)
  return { start, end: addInterval(start, recurring.interval, recurring.interval_count) }
}

/** The period lives on the items since 2025-03-31.basil; the subscription keeps a copy for older readers. */
export const currentPeriod = (subscription: LegacySubscription): Period => ({
  start: subscription.current_period_start,
  end: subscription.current_period_end,
})

export const setPeriod = (subscription: LegacySubscription, period: Period): void => {
  subscription.current_period_start = period.start
  subscription.current_period_end = period.end
  for (const item of subscription.items.data) {
    item.current_period_start = period.start
    item.current_period_end = period.end
  }
}

const buildSubscriptionItem = (fields: {
  subscription: string
  price: Stripe.Price
  quantity: number
  period: Period
}): Stripe.SubscriptionItem =>
  fromFixture<Stripe.SubscriptionItem>('subscription_item', {
    id: newId('si'),
    created: fields.period.start,
    current_period_start: fields.period.start,
    current_period_end: fields.period.end,
    discounts: [],
    metadata: {},
    price: fields.price,
    quantity: fields.quantity,
    subscription: fields.subscription,
    tax_rates: [],
  })

export const buildSubscription = (
  processor: Processor,
  fields: {
    customer: string
    lines: { price: Stripe.Price; quantity: number }[]
    metadata: Stripe.Metadata
  },
): LegacySubscription => {
  const id = newId('sub')
  const firstPrice = fields.lines[0]?.price
  if (!firstPrice) throw new Error('a subscription needs at least one price')
  const period = periodFrom(firstPrice, nowSeconds())
  const items = fields.lines.map((line) => buildSubscriptionItem({ subscription: id, ...line, period }))
  return fromFixture<LegacySubscription>('subscription', {
    id,
    billing_cycle_anchor: period.start,
    cancel_at: null,
    cancel_at_period_end: false,
    canceled_at: null,
    cancellation_details: { comment: null, feedback: null, feedback_option: null, reason: null },
    created: period.start,
    currency: firstPrice.currency,
    current_period_start: period.start,
    current_period_end: period.end,
    customer: fields.customer,
    default_payment_method: null,
    discounts: [],
    ended_at: null,
    items: {
      object: 'list',
      data: items,
      has_more: false,
      total_count: items.length,
      url: `/v1/subscription_items?subscription=${id}`,
    },
    latest_invoice: null,
    livemode: processor.livemode,
    metadata: fields.metadata,
    next_pending_invoice_item_invoice: null,
    start_date: period.start,
    status: 'active',
    trial_end: null,
    trial_start: null,
  })
}

const describeLine = (productName: string, price: Stripe.Price, quantity: number): string => {
  const amount = formatAmount(price.unit_amount ?? 0, price.currency)
  const per = price.recurring ? ` / ${price.recurring.interval}` : ''
  return `${quantity} × ${productName} (at ${amount}${per})`
}

const buildInvoiceLine = (
  processor: Processor,
  fields: {
    invoice: string
    subscription: LegacySubscription
    item: Stripe.SubscriptionItem
    productName: string
    period: Period
    tax: TaxRule | null
  },
): Stripe.InvoiceLineItem => {
  const { item, subscription, tax } = fields
  const quantity = item.quantity ?? 1
  const amount = (item.price.unit_amount ?? 0) * quantity
  const taxed = tax ? lineTax(tax, amount) : null
  return fromFixture<Stripe.InvoiceLineItem>('line_item', {
    id: newId('il'),
    amount,
    amount_excluding_tax: amount,
    currency: item.price.currency,
    description: describeLine(fields.productName, item.price, quantity),
    discount_amounts: [],
    discounts: [],
    invoice: fields.invoice,
    invoice_item: null,
    livemode: processor.livemode,
    metadata: {},
    parent: {
      type: 'subscription_item_details',
      invoice_item_details: null,
      subscription_item_details: {
        invoice_item: null,
        proration: false,
        proration_details: { credited_items: null },
        subscription: subscription.id,
        subscription_item: item.id,
      },
    },
    period: { start: fields.period.start, end: fields.period.end },
    pretax_credit_amounts: [],
    price: item.price,
    pricing: {
      type: 'price_details',
      price_details: { price: item.price.id, product: item.price.product },
      unit_amount_decimal: item.price.unit_amount_decimal,
    },
    quantity,
    subscription: subscription.id,
    subtotal: amount,
    ...taxFields(tax, taxed),
    type: 'subscription',
    unit_amount_excluding_tax: item.price.unit_amount_decimal,
  })
}

/** A line's `taxes` (and the older `tax_amounts`) under an automatic tax rule. */
const taxFields = (tax: TaxRule | null, taxed: LineTax | null) =>
  tax && taxed ? { taxes: [taxEntry(tax, taxed)], tax_amounts: [legacyTaxEntry(tax, taxed)] } : { taxes: [] }

/** An invoice's `automatic_tax`, `total_taxes` (and the older `tax`, `total_tax_amounts`) for its lines' tax. */
export const invoiceTaxFields = (tax: TaxRule | null, taxed: LineTax) =>
  tax
    ? {
        automatic_tax: {
          disabled_reason: null,
          enabled: true,
          liability: { type: 'self' },
          provider: 'stripe',
          status: 'complete',
        },
        tax: taxed.amount,
        total_tax_amounts: [legacyTaxEntry(tax, taxed)],
        total_taxes: [taxEntry(tax, taxed)],
      }
    : { total_taxes: [] }

/** What the invoice PDF and page say of a tax line: `VAT 19% (DE)`, `Reverse charge (DE)`. */
export const describeTax = (
  invoice: LegacyInvoice,
  rates: (id: string) => Stripe.TaxRate | undefined,
): string | null => {
  const entry = invoice.total_taxes?.[0]
  if (!entry) return null
  const rate = entry.tax_rate_details ? rates(entry.tax_rate_details.tax_rate) : undefined
  const where = rate?.country ? ` (${rate.country})` : ''
  if (entry.taxability_reason === 'reverse_charge') return `Reverse charge${where}`
  if (!rate || rate.percentage === 0) return `No tax${where}`
  return `${rate.display_name} ${rate.percentage}%${where}`
}

/**
 * A draft invoice for the subscription's items over `period`. The first invoice of a subscription
 * (billing_reason `subscription_create`) has a zero-length invoice period, later ones cover the
 * period just ended; the lines always cover the period being paid for.
 */
export const buildInvoice = (
  processor: Processor,
  fields: {
    subscription: LegacySubscription
    customer: Stripe.Customer
    billingReason: 'subscription_create' | 'subscription_cycle'
    period: Period
    previousPeriod: Period | null
    productName: (price: Stripe.Price) => string
    /** With automatic tax, what the customer's location (and tax ID) makes of each line. */
    tax: TaxRule | null
  },
): LegacyInvoice => {
  const { subscription, customer } = fields
  const id = newId('in')
  const created = nowSeconds()
  const lines = subscription.items.data.map((item) =>
    buildInvoiceLine(processor, {
      invoice: id,
      subscription,
      item,
      productName: fields.productName(item.price),
      period: fields.period,
      tax: fields.tax,
    }),
  )
  const amount = lines.reduce((sum, line) => sum + line.amount, 0)
  const taxAmount = lines.reduce((sum, line) => sum + (line.taxes ?? []).reduce((all, tax) => all + tax.amount, 0), 0)
  const total = amount + taxAmount
  return fromFixture<LegacyInvoice>('invoice', {
    id,
    amount_due: total,
    amount_overpaid: 0,
    amount_paid: 0,
    amount_remaining: total,
    amount_shipping: 0,
    attempt_count: 0,
    attempted: false,
    auto_advance: false,
    automatically_finalizes_at: null,
    billing_reason: fields.billingReason,
    charge: null,
    created,
    currency: subscription.currency,
    customer: customer.id,
    customer_account: null,
    customer_email: customer.email,
    customer_name: customer.name ?? null,
    due_date: null,
    effective_at: null,
    hosted_invoice_url: null,
    issuer: { type: 'self' },
    lines: { object: 'list', data: lines, has_more: false, total_count: lines.length, url: `/v1/invoices/${id}/lines` },
    livemode: processor.livemode,
    metadata: {},
    next_payment_attempt: null,
    number: null,
    paid: false,
    parent: {
      type: 'subscription_details',
      quote_details: null,
      subscription_details: { metadata: subscription.metadata, subscription: subscription.id },
    },
    payment_intent: null,
    period_start: fields.previousPeriod?.start ?? created,
    period_end: fields.previousPeriod?.end ?? created,
    status: 'draft',
    status_transitions: { finalized_at: null, marked_uncollectible_at: null, paid_at: null, voided_at: null },
    subscription: subscription.id,
    subtotal: amount,
    subtotal_excluding_tax: amount,
    total,
    total_discount_amounts: [],
    total_excluding_tax: amount,
    total_pretax_credit_amounts: [],
    ...invoiceTaxFields(fields.tax, { taxable: amount, amount: taxAmount }),
    webhooks_delivered_at: null,
  })
}

/** The next number: `<prefix>-0001`, `<prefix>-0002`, ... per customer, account-wide for a guest's invoices. */
const nextInvoiceNumber = (processor: Processor, customer: Stripe.Customer | null): string => {
  const numbering = processor.state.invoiceNumbering
  const prefix = customer ? (customer.invoice_prefix ?? 'INV') : numbering.prefix
  const sequence = customer ? (customer.next_invoice_sequence ?? 1) : numbering.next
  if (customer) customer.next_invoice_sequence = sequence + 1
  else numbering.next = sequence + 1
  return `${prefix}-${String(sequence).padStart(4, '0')}`
}

/** Finalizing numbers the invoice and gives it its hosted page and PDF. */
export const finalizeInvoice = (
  processor: Processor,
  invoice: LegacyInvoice,
  customer: Stripe.Customer | null,
): void => {
  const now = nowSeconds()
  invoice.status = 'open'
  invoice.number = nextInvoiceNumber(processor, customer)
  invoice.hosted_invoice_url = `${processor.publicUrl}/invoices/${invoice.id}`
  invoice.invoice_pdf = `${processor.publicUrl}/invoices/${invoice.id}/pdf`
  invoice.effective_at = now
  invoice.status_transitions.finalized_at = now
}

/** Paid by the payment intent's charge; an invoice with nothing to pay (a full discount) is paid without one. */
export const markInvoicePaid = (
  invoice: LegacyInvoice,
  payment: { paymentIntent: Stripe.PaymentIntent; charge: Stripe.Charge } | null,
): void => {
  invoice.status = 'paid'
  invoice.paid = true
  invoice.attempted = true
  invoice.attempt_count += 1
  invoice.amount_paid = invoice.amount_due
  invoice.amount_remaining = 0
  invoice.next_payment_attempt = null
  invoice.payment_intent = payment?.paymentIntent.id ?? null
  invoice.charge = payment?.charge.id ?? null
  invoice.status_transitions.paid_at = nowSeconds()
}

/** A failed attempt leaves the invoice open; Smart Retries try again a few days later. */
export const markInvoiceAttemptFailed = (invoice: LegacyInvoice, paymentIntent: Stripe.PaymentIntent): void => {
  invoice.attempted = true
  invoice.attempt_count += 1
  invoice.next_payment_attempt = daysFrom(nowSeconds(), 3)
  invoice.payment_intent = paymentIntent.id
}

/**
 * An invoice's payment, as `GET /v1/invoice_payments` lists it: how a charge or payment intent is traced
 * back to the invoice (and so the subscription) it paid, now that they no longer name the invoice.
 */
export const invoicePaymentOf = (invoice: LegacyInvoice) => ({
  id: `inpay_${invoice.id.slice(3)}`,
  object: 'invoice_payment',
  amount_paid: invoice.paid ? invoice.amount_paid : null,
  amount_requested: invoice.amount_due,
  created: invoice.created,
  currency: invoice.currency,
  invoice: invoice.id,
  is_default: true,
  livemode: invoice.livemode,
  payment: { type: 'payment_intent', payment_intent: invoice.payment_intent },
  status: invoice.paid ? 'paid' : 'open',
  status_transitions: { canceled_at: null, paid_at: invoice.status_transitions.paid_at },
})

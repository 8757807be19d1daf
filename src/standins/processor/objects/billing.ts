import type Stripe from 'stripe'

import type { Processor } from '../context'
import { fromFixture } from '../fixtures'
import { addInterval, daysFrom, newId, nowSeconds } from '../ids'
import { formatAmount } from '../money'
import type { LegacyInvoice, LegacySubscription } from '../state'

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
  },
): Stripe.InvoiceLineItem => {
  const { item, subscription } = fields
  const quantity = item.quantity ?? 1
  const amount = (item.price.unit_amount ?? 0) * quantity
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
    taxes: [],
    type: 'subscription',
    unit_amount_excluding_tax: item.price.unit_amount_decimal,
  })
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
    }),
  )
  const amount = lines.reduce((sum, line) => sum + line.amount, 0)
  return fromFixture<LegacyInvoice>('invoice', {
    id,
    amount_due: amount,
    amount_overpaid: 0,
    amount_paid: 0,
    amount_remaining: amount,
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
    total: amount,
    total_discount_amounts: [],
    total_excluding_tax: amount,
    total_pretax_credit_amounts: [],
    total_taxes: [],
    webhooks_delivered_at: null,
  })
}

/** Finalizing numbers the invoice (per customer) and gives it its hosted page. */
export const finalizeInvoice = (processor: Processor, invoice: LegacyInvoice, customer: Stripe.Customer): void => {
  const sequence = customer.next_invoice_sequence ?? 1
  customer.next_invoice_sequence = sequence + 1
  const now = nowSeconds()
  invoice.status = 'open'
  invoice.number = `${customer.invoice_prefix ?? 'INV'}-${String(sequence).padStart(4, '0')}`
  invoice.hosted_invoice_url = `${processor.publicUrl}/invoice/${invoice.id}`
  invoice.effective_at = now
  invoice.status_transitions.finalized_at = now
}

export const markInvoicePaid = (
  invoice: LegacyInvoice,
  paymentIntent: Stripe.PaymentIntent,
  charge: Stripe.Charge,
): void => {
  invoice.status = 'paid'
  invoice.paid = true
  invoice.attempted = true
  invoice.attempt_count += 1
  invoice.amount_paid = invoice.amount_due
  invoice.amount_remaining = 0
  invoice.next_payment_attempt = null
  invoice.payment_intent = paymentIntent.id
  invoice.charge = charge.id
  invoice.status_transitions.paid_at = nowSeconds()
}

/** A failed attempt leaves the invoice open; Smart Retries try again a few days later. */
export const markInvoiceAttemptFailed = (invoice: LegacyInvoice, paymentIntent: Stripe.PaymentIntent): void => {
  invoice.attempted = true
  invoice.attempt_count += 1
  invoice.next_payment_attempt = daysFrom(nowSeconds(), 3)
  invoice.payment_intent = paymentIntent.id
}

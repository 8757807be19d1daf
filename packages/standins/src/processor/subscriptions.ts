import type Stripe from 'stripe'

import type { Origin, Processor } from './context'
import { invalidRequest, resourceMissing } from './errors'
import { previousAttributes } from './events'
import { nowSeconds } from './ids'
import {
  buildInvoice,
  buildSubscription,
  currentPeriod,
  finalizeInvoice,
  markInvoiceAttemptFailed,
  markInvoicePaid,
  periodFrom,
  setPeriod,
  type Period,
} from './objects/billing'
import { buildCharge, buildPaymentIntent, markDeclined, markSucceeded } from './objects/payment'
import { boolean as booleanParam, integer, mergeMetadata, nonEmptyText, objects, type Params } from './params'
import {
  productName,
  requireCustomer,
  requirePrice,
  requireSubscription,
  type LegacyInvoice,
  type LegacySubscription,
} from './state'
import { customerTaxIds, DEFAULT_COUNTRY, taxRule, type TaxRule } from './tax'
import type { SubscriptionChanges } from './types'

type Result = { events: Stripe.Event[] }

const customerIdOf = (subscription: LegacySubscription): string =>
  typeof subscription.customer === 'string' ? subscription.customer : subscription.customer.id

const customerOf = (processor: Processor, subscription: LegacySubscription): Stripe.Customer =>
  requireCustomer(processor.state, customerIdOf(subscription))

const firstPrice = (subscription: LegacySubscription): Stripe.Price => {
  const item = subscription.items.data[0]
  if (!item) throw new Error(`subscription ${subscription.id} has no items`)
  return item.price
}

const requireLive = (processor: Processor, id: string): LegacySubscription => {
  const subscription = requireSubscription(processor.state, id)
  if (subscription.status === 'canceled') {
    throw invalidRequest(`Subscription ${id} is canceled; a canceled subscription cannot be changed.`, { param: 'id' })
  }
  return subscription
}

/**
 * With automatic tax, a renewal is taxed where the customer's address is (checkout saved the one it
 * collected) and reverse charged when the customer has a tax ID.
 */
const renewalTax = (
  processor: Processor,
  subscription: LegacySubscription,
  customer: Stripe.Customer,
): TaxRule | null => {
  if (!subscription.automatic_tax?.enabled) return null
  const [taxId] = customerTaxIds(processor, customer.id)
  const country = customer.address?.country ?? DEFAULT_COUNTRY
  return taxRule(processor, country, taxId ? { type: taxId.type, value: taxId.value } : null)
}

/** A finalized invoice for the subscription's items over `period`: `invoice.created` (draft) and `invoice.finalized`. */
const openInvoice = (
  processor: Processor,
  subscription: LegacySubscription,
  billing: {
    reason: 'subscription_create' | 'subscription_cycle'
    period: Period
    previousPeriod: Period | null
    tax?: TaxRule | null
  },
): { invoice: LegacyInvoice; events: Stripe.Event[] } => {
  const customer = customerOf(processor, subscription)
  const invoice = buildInvoice(processor, {
    subscription,
    customer,
    billingReason: billing.reason,
    period: billing.period,
    previousPeriod: billing.previousPeriod,
    productName: (price) => productName(processor.state, price),
    tax: billing.tax === undefined ? renewalTax(processor, subscription, customer) : billing.tax,
  })
  processor.state.invoices.set(invoice.id, invoice)
  subscription.latest_invoice = invoice.id
  const created = processor.events.create('invoice.created', invoice)
  finalizeInvoice(processor, invoice, customer)
  return { invoice, events: [created, processor.events.create('invoice.finalized', invoice)] }
}

/** The invoice's payment intent: the one of an earlier failed attempt, or a new one. */
const paymentIntentFor = (processor: Processor, invoice: LegacyInvoice): Stripe.PaymentIntent => {
  const earlier = invoice.payment_intent ? processor.state.paymentIntents.get(invoice.payment_intent) : undefined
  if (earlier) return earlier
  const customer = typeof invoice.customer === 'string' ? invoice.customer : (invoice.customer?.id ?? null)
  const paymentIntent = buildPaymentIntent(processor, {
    amount: invoice.amount_due,
    currency: invoice.currency,
    customer,
    // Stripe does not copy subscription metadata to the invoice's payment intent.
    metadata: {},
    description: invoice.billing_reason === 'subscription_create' ? 'Subscription creation' : 'Subscription update',
    kind: 'card',
    receiptEmail: invoice.customer_email,
  })
  processor.state.paymentIntents.set(paymentIntent.id, paymentIntent)
  return paymentIntent
}

const payInvoice = (processor: Processor, invoice: LegacyInvoice): Stripe.Event[] => {
  const paymentIntent = paymentIntentFor(processor, invoice)
  const charge = buildCharge(processor, { paymentIntent, email: invoice.customer_email, kind: 'card' })
  processor.state.charges.set(charge.id, charge)
  markSucceeded(paymentIntent, charge)
  markInvoicePaid(invoice, { paymentIntent, charge })
  return [
    processor.events.create('invoice.paid', invoice),
    processor.events.create('invoice.payment_succeeded', invoice),
    processor.events.create('payment_intent.succeeded', paymentIntent),
    processor.events.create('charge.succeeded', charge),
  ]
}

const failInvoice = (processor: Processor, invoice: LegacyInvoice): Stripe.Event[] => {
  const paymentIntent = paymentIntentFor(processor, invoice)
  markDeclined(paymentIntent, 'card')
  markInvoiceAttemptFailed(invoice, paymentIntent)
  return [
    processor.events.create('invoice.payment_failed', invoice),
    processor.events.create('payment_intent.payment_failed', paymentIntent),
  ]
}

/**
 * The invoice a renewal attempt pays: the open one of an earlier failed attempt, or the next cycle's.
 * Like Stripe, a new cycle moves the subscription's period forward whether or not its payment succeeds.
 */
const renewalInvoice = (
  processor: Processor,
  subscription: LegacySubscription,
): { invoice: LegacyInvoice; events: Stripe.Event[] } => {
  const latest =
    typeof subscription.latest_invoice === 'string'
      ? processor.state.invoices.get(subscription.latest_invoice)
      : undefined
  if (latest?.status === 'open') return { invoice: latest, events: [] }
  const previousPeriod = currentPeriod(subscription)
  const period = periodFrom(firstPrice(subscription), previousPeriod.end)
  setPeriod(subscription, period)
  return openInvoice(processor, subscription, { reason: 'subscription_cycle', period, previousPeriod })
}

const updatedEvent = (
  processor: Processor,
  before: LegacySubscription,
  subscription: LegacySubscription,
  origin: Origin,
): Stripe.Event[] => {
  const changed = previousAttributes(before, subscription)
  if (Object.keys(changed).length === 0) return []
  return [
    processor.events.create('customer.subscription.updated', subscription, { previousAttributes: changed, ...origin }),
  ]
}

const cancellationDetails = (
  reason: Stripe.Subscription.CancellationDetails.Reason | null,
): Stripe.Subscription.CancellationDetails => ({ comment: null, feedback: null, feedback_option: null, reason })

const setCancelAtPeriodEnd = (subscription: LegacySubscription, cancel: boolean): void => {
  if (subscription.cancel_at_period_end === cancel) return
  subscription.cancel_at_period_end = cancel
  subscription.cancel_at = cancel ? subscription.current_period_end : null
  // Stripe records when the cancellation was requested, not when it takes effect.
  subscription.canceled_at = cancel ? nowSeconds() : null
  subscription.cancellation_details = cancellationDetails(cancel ? 'cancellation_requested' : null)
}

/** What checkout does for `subscription` mode once the first payment went through; `tax` is checkout's calculation. */
export const startSubscription = (
  processor: Processor,
  fields: { customer: string; lineItems: Stripe.LineItem[]; metadata: Stripe.Metadata; tax: TaxRule | null },
): { subscription: LegacySubscription; invoice: LegacyInvoice; events: Stripe.Event[] } => {
  const lines = fields.lineItems.flatMap((item) =>
    item.price ? [{ price: item.price, quantity: item.quantity ?? 1 }] : [],
  )
  const subscription = buildSubscription(processor, {
    customer: fields.customer,
    lines,
    metadata: fields.metadata,
  })
  if (fields.tax) subscription.automatic_tax = { disabled_reason: null, enabled: true, liability: { type: 'self' } }
  processor.state.subscriptions.set(subscription.id, subscription)
  const opened = openInvoice(processor, subscription, {
    reason: 'subscription_create',
    period: currentPeriod(subscription),
    previousPeriod: null,
    tax: fields.tax,
  })
  const paid = payInvoice(processor, opened.invoice)
  const created = processor.events.create('customer.subscription.created', subscription)
  return { subscription, invoice: opened.invoice, events: [created, ...opened.events, ...paid] }
}

export const updateSubscription = (
  processor: Processor,
  id: string,
  changes: SubscriptionChanges,
  origin: Origin = {},
): Result => {
  const subscription = requireLive(processor, id)
  const before = structuredClone(subscription)
  if (changes.priceId !== undefined) {
    const price = requirePrice(processor.state, changes.priceId, processor.livemode, {
      param: 'items[0][price]',
      status: 400,
    })
    if (price.type !== 'recurring') {
      throw invalidRequest(
        'The price specified is set to `type=one_time` but this field only accepts prices with `type=recurring`.',
        {
          param: 'items[0][price]',
        },
      )
    }
    const item = subscription.items.data[0]
    if (item) item.price = price
  }
  if (changes.quantity !== undefined) {
    const item = subscription.items.data[0]
    if (item) item.quantity = changes.quantity
  }
  if (changes.cancelAtPeriodEnd !== undefined) setCancelAtPeriodEnd(subscription, changes.cancelAtPeriodEnd)
  if (changes.status !== undefined) subscription.status = changes.status
  return { events: updatedEvent(processor, before, subscription, origin) }
}

/**
 * `items[n][id]` with `items[n][quantity]`: an existing item's new quantity, as Stripe takes it (0 and
 * up; an unknown item id is "No such subscription item"). Adding or deleting items is not spoken here,
 * and says so.
 */
const itemQuantities = (subscription: LegacySubscription, params: Params): [Stripe.SubscriptionItem, number][] => {
  if (params.items === undefined) return []
  return objects(params.items).flatMap((entry, index): [Stripe.SubscriptionItem, number][] => {
    const id = nonEmptyText(entry.id)
    if (id === undefined)
      throw invalidRequest('The stand-in updates existing subscription items only: send items[][id].', {
        param: `items[${index}][id]`,
      })
    const item = subscription.items.data.find((candidate) => candidate.id === id)
    if (!item) throw resourceMissing('subscription_item', id, { param: `items[${index}][id]`, status: 400 })
    const quantity = integer(entry.quantity, `items[${index}][quantity]`)
    if (quantity === undefined) return []
    if (quantity < 0)
      throw invalidRequest('This value must be greater than or equal to 0.', { param: `items[${index}][quantity]` })
    return [[item, quantity]]
  })
}

/** `POST /v1/subscriptions/:id`: the fields an integration changes on its own. */
export const updateSubscriptionFromApi = (
  processor: Processor,
  id: string,
  params: Params,
  origin: Origin,
): Result & { subscription: LegacySubscription } => {
  const subscription = requireSubscription(processor.state, id)
  const cancelAtPeriodEnd = booleanParam(params.cancel_at_period_end, 'cancel_at_period_end')
  if (subscription.status === 'canceled' && (cancelAtPeriodEnd !== undefined || params.items !== undefined)) {
    throw invalidRequest('A canceled subscription can only update its cancellation_details and metadata.', {
      param: cancelAtPeriodEnd !== undefined ? 'cancel_at_period_end' : 'items',
    })
  }
  // Every item checked before any changes: a refused request changes nothing.
  const quantities = itemQuantities(subscription, params)
  const before = structuredClone(subscription)
  for (const [item, quantity] of quantities) item.quantity = quantity
  if (cancelAtPeriodEnd !== undefined) setCancelAtPeriodEnd(subscription, cancelAtPeriodEnd)
  if (params.metadata !== undefined) subscription.metadata = mergeMetadata(subscription.metadata, params.metadata)
  return { subscription, events: updatedEvent(processor, before, subscription, origin) }
}

export const cancelSubscription = (
  processor: Processor,
  id: string,
  origin: Origin = {},
): Result & { subscription: LegacySubscription } => {
  const subscription = requireLive(processor, id)
  const now = nowSeconds()
  subscription.status = 'canceled'
  subscription.canceled_at = subscription.canceled_at ?? now
  subscription.ended_at = now
  subscription.cancellation_details = cancellationDetails('cancellation_requested')
  return { subscription, events: [processor.events.create('customer.subscription.deleted', subscription, origin)] }
}

/** Deleting a customer ends each of its subscriptions not canceled yet at once, as `cancelSubscription` does. */
export const cancelCustomerSubscriptions = (processor: Processor, customerId: string, origin: Origin = {}): Result => {
  const live = [...processor.state.subscriptions.values()].filter(
    (subscription) => customerIdOf(subscription) === customerId && subscription.status !== 'canceled',
  )
  return { events: live.flatMap((subscription) => cancelSubscription(processor, subscription.id, origin).events) }
}

/** A renewal whose payment is declined: the invoice stays open and the subscription goes past due. */
export const failInvoicePayment = (processor: Processor, id: string): Result => {
  const subscription = requireLive(processor, id)
  const before = structuredClone(subscription)
  const renewal = renewalInvoice(processor, subscription)
  const failed = failInvoice(processor, renewal.invoice)
  subscription.status = 'past_due'
  return { events: [...renewal.events, ...failed, ...updatedEvent(processor, before, subscription, {})] }
}

/** A renewal that is paid: the next period (or the open one a failed attempt left) is paid and active. */
export const renewSubscription = (processor: Processor, id: string): Result => {
  const subscription = requireLive(processor, id)
  const before = structuredClone(subscription)
  const renewal = renewalInvoice(processor, subscription)
  const paid = payInvoice(processor, renewal.invoice)
  subscription.status = 'active'
  return { events: [...renewal.events, ...paid, ...updatedEvent(processor, before, subscription, {})] }
}

import type Stripe from 'stripe'

import type { Processor } from './context'
import { couponNoLongerValid, redeemCoupon } from './coupons'
import { invalidRequest } from './errors'
import { buildCustomer } from './objects/customer'
import { buildCharge, buildPaymentIntent, markDeclined, markSucceeded, type PaymentMethodKind } from './objects/payment'
import { refreshCouponValidity, requireCustomer, requireSession, type CheckoutDetails } from './state'
import { startSubscription } from './subscriptions'
import type { PayOptions, PayOutcome } from './types'

/** One batch per moment: a delayed payment's outcome arrives (days) after the completed checkout. */
export type PaymentPhases = Stripe.Event[][]

const FALLBACK_EMAIL = 'customer@example.com'

const detailsOf = (processor: Processor, session: Stripe.Checkout.Session): CheckoutDetails => {
  const details = processor.state.checkoutDetails.get(session.id)
  if (!details) throw new Error(`checkout session ${session.id} has no recorded details`)
  return details
}

const existingCustomer = (processor: Processor, session: Stripe.Checkout.Session): Stripe.Customer | null => {
  if (session.customer === null) return null
  return requireCustomer(processor.state, typeof session.customer === 'string' ? session.customer : session.customer.id)
}

/**
 * The customer checkout pays as: the one the session names, else a new one. Payment mode makes one
 * only with `customer_creation: 'always'`; otherwise the buyer stays a guest (`customer: null`).
 */
const payingCustomer = (
  processor: Processor,
  session: Stripe.Checkout.Session,
  email: string,
): { customer: Stripe.Customer | null; events: Stripe.Event[] } => {
  const existing = existingCustomer(processor, session)
  if (existing) return { customer: existing, events: [] }
  if (session.mode === 'payment' && session.customer_creation !== 'always') return { customer: null, events: [] }
  const customer = buildCustomer(processor, { email, name: null, metadata: {} })
  processor.state.customers.set(customer.id, customer)
  return { customer, events: [processor.events.create('customer.created', customer)] }
}

const complete = (session: Stripe.Checkout.Session, customer: Stripe.Customer | null, email: string): void => {
  session.status = 'complete'
  session.customer = customer?.id ?? null
  session.customer_details = {
    address: null,
    business_name: null,
    email,
    individual_name: null,
    name: customer?.name ?? null,
    phone: null,
    tax_exempt: 'none',
    tax_ids: [],
  }
}

/**
 * The coupon of the session's discount, if it has one. Other sessions may have used it up since this
 * one was created, its `redeem_by` may have passed or it may have been deleted: then checkout refuses
 * to complete, and nothing is charged.
 */
const redeemableCoupon = (processor: Processor, session: Stripe.Checkout.Session): Stripe.Coupon | null => {
  const discount = session.discounts?.[0]
  if (!discount?.coupon) return null
  const id = typeof discount.coupon === 'string' ? discount.coupon : discount.coupon.id
  const coupon = processor.state.coupons.get(id)
  if (!coupon || !refreshCouponValidity(coupon).valid) throw couponNoLongerValid(id)
  return coupon
}

/** The session's payment intent: the one a declined attempt left, or a new one. */
const paymentIntentFor = (
  processor: Processor,
  session: Stripe.Checkout.Session,
  fields: { customer: string | null; kind: PaymentMethodKind; email: string },
): Stripe.PaymentIntent => {
  const earlierId = typeof session.payment_intent === 'string' ? session.payment_intent : null
  const earlier = earlierId ? processor.state.paymentIntents.get(earlierId) : undefined
  if (earlier) {
    earlier.customer = fields.customer
    earlier.payment_method_types = [fields.kind]
    earlier.receipt_email = fields.email
    return earlier
  }
  const paymentIntent = buildPaymentIntent(processor, {
    amount: session.amount_total ?? 0,
    currency: session.currency ?? 'usd',
    customer: fields.customer,
    metadata: session.mode === 'payment' ? detailsOf(processor, session).paymentIntentMetadata : {},
    description: null,
    kind: fields.kind,
    receiptEmail: fields.email,
  })
  processor.state.paymentIntents.set(paymentIntent.id, paymentIntent)
  // In subscription mode the payment intent belongs to the first invoice, not to the session.
  if (session.mode === 'payment') session.payment_intent = paymentIntent.id
  return paymentIntent
}

const settle = (
  processor: Processor,
  paymentIntent: Stripe.PaymentIntent,
  email: string,
  kind: PaymentMethodKind,
): Stripe.Event[] => {
  const charge = buildCharge(processor, { paymentIntent, email, kind })
  processor.state.charges.set(charge.id, charge)
  markSucceeded(paymentIntent, charge)
  return [
    processor.events.create('payment_intent.succeeded', paymentIntent),
    processor.events.create('charge.succeeded', charge),
  ]
}

const decline = (processor: Processor, session: Stripe.Checkout.Session, email: string): PaymentPhases => {
  const customer = existingCustomer(processor, session)
  const paymentIntent = paymentIntentFor(processor, session, { customer: customer?.id ?? null, kind: 'card', email })
  markDeclined(paymentIntent, 'card')
  return [[processor.events.create('payment_intent.payment_failed', paymentIntent)]]
}

const paySubscription = (processor: Processor, session: Stripe.Checkout.Session, email: string): PaymentPhases => {
  const paying = payingCustomer(processor, session, email)
  if (!paying.customer) throw new Error('subscription mode always has a customer')
  const started = startSubscription(processor, {
    customer: paying.customer.id,
    lineItems: detailsOf(processor, session).lineItems,
    metadata: detailsOf(processor, session).subscriptionMetadata,
  })
  complete(session, paying.customer, email)
  session.payment_status = 'paid'
  session.subscription = started.subscription.id
  session.invoice = started.invoice.id
  return [[...paying.events, processor.events.create('checkout.session.completed', session), ...started.events]]
}

/** Nothing left to pay after the discount: checkout completes without a payment intent. */
const completeFree = (
  processor: Processor,
  session: Stripe.Checkout.Session,
  email: string,
  coupon: Stripe.Coupon | null,
): PaymentPhases => {
  const paying = payingCustomer(processor, session, email)
  complete(session, paying.customer, email)
  session.payment_status = 'no_payment_required'
  if (coupon) redeemCoupon(coupon)
  return [[...paying.events, processor.events.create('checkout.session.completed', session)]]
}

const payOnce = (
  processor: Processor,
  session: Stripe.Checkout.Session,
  email: string,
  coupon: Stripe.Coupon | null,
): PaymentPhases => {
  const paying = payingCustomer(processor, session, email)
  const paymentIntent = paymentIntentFor(processor, session, {
    customer: paying.customer?.id ?? null,
    kind: 'card',
    email,
  })
  const settled = settle(processor, paymentIntent, email, 'card')
  complete(session, paying.customer, email)
  session.payment_status = 'paid'
  if (coupon) redeemCoupon(coupon)
  return [[...paying.events, processor.events.create('checkout.session.completed', session), ...settled]]
}

/** Bank debits: checkout completes unpaid while the payment processes; the outcome comes later. */
const payDelayed = (
  processor: Processor,
  session: Stripe.Checkout.Session,
  email: string,
  succeeds: boolean,
  coupon: Stripe.Coupon | null,
): PaymentPhases => {
  const kind = 'us_bank_account'
  const paying = payingCustomer(processor, session, email)
  const paymentIntent = paymentIntentFor(processor, session, { customer: paying.customer?.id ?? null, kind, email })
  paymentIntent.status = 'processing'
  complete(session, paying.customer, email)
  session.payment_status = 'unpaid'
  // The coupon is redeemed when checkout completes, before the debit's outcome is known.
  if (coupon) redeemCoupon(coupon)
  const completed = [...paying.events, processor.events.create('checkout.session.completed', session)]
  if (succeeds) {
    const settled = settle(processor, paymentIntent, email, kind)
    session.payment_status = 'paid'
    return [completed, [processor.events.create('checkout.session.async_payment_succeeded', session), ...settled]]
  }
  markDeclined(paymentIntent, kind)
  return [
    completed,
    [
      processor.events.create('checkout.session.async_payment_failed', session),
      processor.events.create('payment_intent.payment_failed', paymentIntent),
    ],
  ]
}

/** What the hosted checkout's "Pay" does; returns the events to deliver, batch after batch. */
export const payCheckoutSession = (
  processor: Processor,
  sessionId: string,
  options: PayOptions = {},
): PaymentPhases => {
  const session = requireSession(processor.state, sessionId)
  if (session.status !== 'open') {
    const message = `Checkout session ${session.id} is ${session.status ?? 'closed'}; only an open session can be paid.`
    throw invalidRequest(message, { status: 409 })
  }
  const outcome: PayOutcome = options.outcome ?? 'succeeded'
  const email = options.email ?? session.customer_email ?? existingCustomer(processor, session)?.email ?? FALLBACK_EMAIL
  const coupon = redeemableCoupon(processor, session)
  // A full discount (a 100% coupon, or `amount_off` covering the subtotal) leaves nothing to pay.
  if (coupon && session.mode === 'payment' && session.amount_total === 0) {
    if (outcome !== 'succeeded') {
      throw invalidRequest(
        `Checkout session ${session.id} has nothing to pay (its total is 0), so there is no payment method for the outcome '${outcome}'.`,
        { param: 'outcome' },
      )
    }
    return completeFree(processor, session, email, coupon)
  }
  if (outcome === 'declined') return decline(processor, session, email)
  if (session.mode === 'subscription') {
    if (outcome !== 'succeeded') {
      throw invalidRequest(`The outcome '${outcome}' is for payment mode; subscription checkouts pay by card.`, {
        param: 'outcome',
      })
    }
    return paySubscription(processor, session, email)
  }
  if (outcome === 'succeeded') return payOnce(processor, session, email, coupon)
  return payDelayed(processor, session, email, outcome === 'async_succeeded', coupon)
}

import type Stripe from 'stripe'

import { collectsPromotions, entriesOf, readPromotions, requireOpenSession } from './checkout-entries'
import { createCheckoutInvoice } from './checkout-invoice'
import { applySessionTax } from './checkout-sessions'
import type { Processor } from './context'
import { couponNoLongerValid, redeemCoupon } from './coupons'
import { invalidRequest } from './errors'
import { previousAttributes } from './events'
import { buildCustomer } from './objects/customer'
import { buildCharge, buildPaymentIntent, markDeclined, markSucceeded, type PaymentMethodKind } from './objects/payment'
import {
  refreshCouponValidity,
  requireCheckoutDetails,
  requireCustomer,
  type BuyerEntries,
  type CheckoutDetails,
} from './state'
import { startSubscription } from './subscriptions'
import {
  buildTaxId,
  customerTaxIds,
  DEFAULT_COUNTRY,
  isTaxedCountry,
  taxIdLooksValid,
  taxRule,
  type CollectedTaxId,
  type TaxRule,
} from './tax'
import type { PayOptions, PayOutcome, PromotionsConsent } from './types'

/** One batch per moment: a delayed payment's outcome arrives (days) after the completed checkout. */
export type PaymentPhases = Stripe.Event[][]

const FALLBACK_EMAIL = 'customer@example.com'

/**
 * What the buyer entered on the hosted checkout besides the email: the billing address (its country:
 * the stand-in collects no more) and, where the session collects them, a business's tax ID and name.
 * `tax` is the automatic tax calculation for them, null without `automatic_tax`.
 */
type Collected = {
  email: string
  /** The promotional-emails checkbox, where the page shows it: ticked or not. Null where it does not. */
  promotions: PromotionsConsent | null
  address: Stripe.Address | null
  taxId: CollectedTaxId | null
  businessName: string | null
  tax: TaxRule | null
}

const detailsOf = (processor: Processor, session: Stripe.Checkout.Session): CheckoutDetails =>
  requireCheckoutDetails(processor.state, session.id)

const existingCustomer = (processor: Processor, session: Stripe.Checkout.Session): Stripe.Customer | null => {
  if (session.customer === null) return null
  return requireCustomer(processor.state, typeof session.customer === 'string' ? session.customer : session.customer.id)
}

const countryAddress = (country: string): Stripe.Address => ({
  city: null,
  country,
  line1: null,
  line2: null,
  postal_code: null,
  state: null,
})

/** The tax ID and business name a pay action brings, checked as checkout's form checks them. */
const readTaxId = (
  session: Stripe.Checkout.Session,
  options: PayOptions,
  country: string | null,
): { taxId: CollectedTaxId | null; businessName: string | null } => {
  const businessName = options.businessName?.trim() || null
  const collecting = session.tax_id_collection?.enabled === true
  if (!collecting && (options.taxId !== undefined || businessName !== null)) {
    throw invalidRequest(
      `Checkout session ${session.id} does not collect tax IDs or business names (tax_id_collection[enabled] is not true).`,
      { param: 'tax_id' },
    )
  }
  if (options.taxId === undefined) {
    if (session.tax_id_collection?.required === 'if_supported' && country !== null && isTaxedCountry(country)) {
      throw invalidRequest(`A tax ID is required to pay checkout session ${session.id} from ${country}.`, {
        param: 'tax_id',
      })
    }
    return { taxId: null, businessName }
  }
  const taxId = { type: options.taxId.type, value: options.taxId.value.trim().toUpperCase() }
  if (!/^[a-z]{2,3}_[a-z_]+$/.test(taxId.type)) {
    throw invalidRequest(`Invalid tax_id[type]: ${taxId.type}`, { param: 'tax_id[type]' })
  }
  if (!taxIdLooksValid(taxId)) {
    throw invalidRequest(`Invalid value for ${taxId.type}.`, { param: 'tax_id[value]', code: 'tax_id_invalid' })
  }
  if (businessName === null) {
    throw invalidRequest('A business name is required with a tax ID.', { param: 'business_name' })
  }
  return { taxId, businessName }
}

/** The box as the buyer leaves it: ticked or not now, else as saved earlier, else not ticked where the page shows it. */
const promotionsAnswer = (
  session: Stripe.Checkout.Session,
  options: PayOptions,
  entries: BuyerEntries,
): PromotionsConsent | null =>
  readPromotions(session, options.promotions) ?? entries.promotions ?? (collectsPromotions(session) ? 'opt_out' : null)

/**
 * The buyer's entries, refused before anything changes when the session does not take them. The
 * country defaults to the customer's address, else DEFAULT_COUNTRY; without automatic tax and without
 * a country given, the session collects no address (as before).
 */
const readCollected = (
  processor: Processor,
  session: Stripe.Checkout.Session,
  options: PayOptions,
  email: string,
): Collected => {
  const given = options.country?.trim().toUpperCase()
  if (given !== undefined && !/^[A-Z]{2}$/.test(given)) {
    throw invalidRequest(`Invalid country: ${options.country ?? ''}`, { param: 'country' })
  }
  const customer = existingCustomer(processor, session)
  const automaticTax = session.automatic_tax?.enabled === true
  const address = given
    ? countryAddress(given)
    : automaticTax
      ? (customer?.address ?? countryAddress(DEFAULT_COUNTRY))
      : null
  const { taxId, businessName } = readTaxId(session, options, address?.country ?? null)
  // A customer's saved tax ID makes it a business buyer as well.
  const [saved] = customer ? customerTaxIds(processor, customer.id) : []
  const businessTaxId = taxId ?? (saved ? { type: saved.type, value: saved.value } : null)
  const tax = automaticTax ? taxRule(processor, address?.country ?? DEFAULT_COUNTRY, businessTaxId) : null
  return {
    email,
    promotions: promotionsAnswer(session, options, entriesOf(processor, session.id)),
    address,
    taxId,
    businessName,
    tax,
  }
}

/** A tax ID the customer does not have yet: `customer.tax_id.created`. */
const saveTaxId = (processor: Processor, customer: Stripe.Customer, collected: Collected): Stripe.Event[] => {
  const { taxId } = collected
  if (!taxId) return []
  const known = customerTaxIds(processor, customer.id).some(
    (entry) => entry.type === taxId.type && entry.value === taxId.value,
  )
  if (known) return []
  const saved = buildTaxId(processor, { customer: customer.id, taxId, country: collected.address?.country ?? null })
  processor.state.taxIds.set(saved.id, saved)
  return [processor.events.create('customer.tax_id.created', saved)]
}

/**
 * What checkout saves onto an existing customer: with `customer_update[name]=auto` the business name,
 * with `customer_update[address]=auto` the billing address (`customer.updated`), and a collected tax ID.
 */
const updateExisting = (
  processor: Processor,
  session: Stripe.Checkout.Session,
  customer: Stripe.Customer,
  collected: Collected,
): Stripe.Event[] => {
  const { customerUpdate } = detailsOf(processor, session)
  const before = structuredClone(customer)
  if (customerUpdate.name === 'auto' && collected.businessName !== null) customer.name = collected.businessName
  if (customerUpdate.address === 'auto' && collected.address !== null) customer.address = collected.address
  const changed = previousAttributes(before, customer)
  const updated =
    Object.keys(changed).length > 0
      ? [processor.events.create('customer.updated', customer, { previousAttributes: changed })]
      : []
  return [...updated, ...saveTaxId(processor, customer, collected)]
}

/**
 * The customer checkout pays as: the one the session names, else a new one. Payment mode makes one
 * only with `customer_creation: 'always'`; otherwise the buyer stays a guest (`customer: null`). A new
 * customer gets the business name, billing address and tax ID checkout collected.
 */
const payingCustomer = (
  processor: Processor,
  session: Stripe.Checkout.Session,
  collected: Collected,
): { customer: Stripe.Customer | null; events: Stripe.Event[] } => {
  const existing = existingCustomer(processor, session)
  if (existing) return { customer: existing, events: updateExisting(processor, session, existing, collected) }
  if (session.mode === 'payment' && session.customer_creation !== 'always') return { customer: null, events: [] }
  const customer = buildCustomer(processor, {
    email: collected.email,
    name: collected.businessName,
    metadata: {},
    address: collected.address,
  })
  processor.state.customers.set(customer.id, customer)
  return {
    customer,
    events: [processor.events.create('customer.created', customer), ...saveTaxId(processor, customer, collected)],
  }
}

const complete = (session: Stripe.Checkout.Session, customer: Stripe.Customer | null, collected: Collected): void => {
  session.status = 'complete'
  session.customer = customer?.id ?? null
  session.consent = collected.promotions ? { promotions: collected.promotions, terms_of_service: null } : null
  session.customer_details = {
    address: collected.address,
    business_name: collected.businessName,
    email: collected.email,
    individual_name: null,
    name: collected.businessName ?? customer?.name ?? null,
    phone: null,
    tax_exempt: 'none',
    tax_ids: collected.taxId ? [collected.taxId] : [],
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

/** The session's payment intent: the one a declined attempt left (for the total as it is now), or a new one. */
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
    if (session.mode === 'payment') earlier.amount = session.amount_total ?? earlier.amount
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
  collected: Collected,
  kind: PaymentMethodKind,
): { charge: Stripe.Charge; events: Stripe.Event[] } => {
  const charge = buildCharge(processor, { paymentIntent, email: collected.email, kind })
  if (collected.address) charge.billing_details.address = collected.address
  if (collected.businessName) charge.billing_details.name = collected.businessName
  processor.state.charges.set(charge.id, charge)
  markSucceeded(paymentIntent, charge)
  return {
    charge,
    events: [
      processor.events.create('payment_intent.succeeded', paymentIntent),
      processor.events.create('charge.succeeded', charge),
    ],
  }
}

/** With `invoice_creation`, the paid invoice of the payment (or of nothing to pay); none otherwise. */
const invoiceFor = (
  processor: Processor,
  session: Stripe.Checkout.Session,
  customer: Stripe.Customer | null,
  collected: Collected,
  payment: { paymentIntent: Stripe.PaymentIntent; charge: Stripe.Charge } | null,
): Stripe.Event[] => {
  const invoiceData = session.invoice_creation?.enabled ? session.invoice_creation.invoice_data : null
  if (!invoiceData) return []
  const taxIds = collected.taxId
    ? [collected.taxId]
    : customer
      ? customerTaxIds(processor, customer.id).map((taxId) => ({ type: taxId.type, value: taxId.value }))
      : []
  const { invoice, events } = createCheckoutInvoice(processor, {
    lineItems: detailsOf(processor, session).lineItems,
    currency: session.currency ?? 'usd',
    invoiceData,
    customer,
    email: collected.email,
    name: collected.businessName ?? customer?.name ?? null,
    address: collected.address ?? customer?.address ?? null,
    taxIds,
    tax: collected.tax,
    payment,
  })
  session.invoice = invoice.id
  return events
}

const decline = (processor: Processor, session: Stripe.Checkout.Session, email: string): PaymentPhases => {
  const customer = existingCustomer(processor, session)
  const paymentIntent = paymentIntentFor(processor, session, { customer: customer?.id ?? null, kind: 'card', email })
  markDeclined(paymentIntent, 'card')
  return [[processor.events.create('payment_intent.payment_failed', paymentIntent)]]
}

const paySubscription = (
  processor: Processor,
  session: Stripe.Checkout.Session,
  collected: Collected,
): PaymentPhases => {
  const paying = payingCustomer(processor, session, collected)
  if (!paying.customer) throw new Error('subscription mode always has a customer')
  const started = startSubscription(processor, {
    customer: paying.customer.id,
    lineItems: detailsOf(processor, session).lineItems,
    metadata: detailsOf(processor, session).subscriptionMetadata,
    tax: collected.tax,
  })
  complete(session, paying.customer, collected)
  session.payment_status = 'paid'
  session.subscription = started.subscription.id
  session.invoice = started.invoice.id
  return [[...paying.events, processor.events.create('checkout.session.completed', session), ...started.events]]
}

/** Nothing left to pay after the discount: checkout completes without a payment intent. */
const completeFree = (
  processor: Processor,
  session: Stripe.Checkout.Session,
  collected: Collected,
  coupon: Stripe.Coupon | null,
): PaymentPhases => {
  const paying = payingCustomer(processor, session, collected)
  complete(session, paying.customer, collected)
  session.payment_status = 'no_payment_required'
  if (coupon) redeemCoupon(coupon)
  const invoiced = invoiceFor(processor, session, paying.customer, collected, null)
  return [[...paying.events, processor.events.create('checkout.session.completed', session), ...invoiced]]
}

const payOnce = (
  processor: Processor,
  session: Stripe.Checkout.Session,
  collected: Collected,
  coupon: Stripe.Coupon | null,
): PaymentPhases => {
  const paying = payingCustomer(processor, session, collected)
  const paymentIntent = paymentIntentFor(processor, session, {
    customer: paying.customer?.id ?? null,
    kind: 'card',
    email: collected.email,
  })
  const settled = settle(processor, paymentIntent, collected, 'card')
  complete(session, paying.customer, collected)
  session.payment_status = 'paid'
  if (coupon) redeemCoupon(coupon)
  const invoiced = invoiceFor(processor, session, paying.customer, collected, { paymentIntent, charge: settled.charge })
  return [
    [...paying.events, processor.events.create('checkout.session.completed', session), ...settled.events, ...invoiced],
  ]
}

/** Bank debits: checkout completes unpaid while the payment processes; the outcome (and invoice) comes later. */
const payDelayed = (
  processor: Processor,
  session: Stripe.Checkout.Session,
  collected: Collected,
  succeeds: boolean,
  coupon: Stripe.Coupon | null,
): PaymentPhases => {
  const kind = 'us_bank_account'
  const paying = payingCustomer(processor, session, collected)
  const paymentIntent = paymentIntentFor(processor, session, {
    customer: paying.customer?.id ?? null,
    kind,
    email: collected.email,
  })
  paymentIntent.status = 'processing'
  complete(session, paying.customer, collected)
  session.payment_status = 'unpaid'
  // The coupon is redeemed when checkout completes, before the debit's outcome is known.
  if (coupon) redeemCoupon(coupon)
  const completed = [...paying.events, processor.events.create('checkout.session.completed', session)]
  if (succeeds) {
    const settled = settle(processor, paymentIntent, collected, kind)
    session.payment_status = 'paid'
    const invoiced = invoiceFor(processor, session, paying.customer, collected, {
      paymentIntent,
      charge: settled.charge,
    })
    return [
      completed,
      [processor.events.create('checkout.session.async_payment_succeeded', session), ...settled.events, ...invoiced],
    ]
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
  const session = requireOpenSession(processor, sessionId, 'paid')
  const outcome: PayOutcome = options.outcome ?? 'succeeded'
  const typed = entriesOf(processor, session.id)
  const email =
    options.email ??
    typed.email ??
    session.customer_email ??
    existingCustomer(processor, session)?.email ??
    FALLBACK_EMAIL
  const collected = readCollected(processor, session, options, email)
  const coupon = redeemableCoupon(processor, session)
  // The tax follows the address just entered; a declined attempt's payment intent is for that total too.
  if (collected.tax) applySessionTax(session, detailsOf(processor, session).lineItems, collected.tax)
  // A full discount (a 100% coupon, or `amount_off` covering the subtotal) leaves nothing to pay.
  if (coupon && session.mode === 'payment' && session.amount_total === 0) {
    if (outcome !== 'succeeded') {
      throw invalidRequest(
        `Checkout session ${session.id} has nothing to pay (its total is 0), so there is no payment method for the outcome '${outcome}'.`,
        { param: 'outcome' },
      )
    }
    return completeFree(processor, session, collected, coupon)
  }
  if (outcome === 'declined') {
    // The buyer stays on the page with what they typed, which an expiry may share later.
    detailsOf(processor, session).entries = { email: options.email ?? typed.email, promotions: collected.promotions }
    return decline(processor, session, email)
  }
  if (session.mode === 'subscription') {
    if (outcome !== 'succeeded') {
      throw invalidRequest(`The outcome '${outcome}' is for payment mode; subscription checkouts pay by card.`, {
        param: 'outcome',
      })
    }
    return paySubscription(processor, session, collected)
  }
  if (outcome === 'succeeded') return payOnce(processor, session, collected, coupon)
  return payDelayed(processor, session, collected, outcome === 'async_succeeded', coupon)
}

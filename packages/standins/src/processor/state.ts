import crypto from 'node:crypto'

import type Stripe from 'stripe'

import { resourceMissing } from './errors'
import { nowSeconds } from './ids'
import { buildDeletedCustomer } from './objects/customer'
import { catalogueEntry } from './prices'
import type { PromotionsConsent, RecordedRequest, StandInPrice } from './types'

/**
 * API version 2026-10-28.endive moved these fields (to subscription items, to `invoice.parent`, to
 * `invoice.payments`). The stand-in still fills them, so code written against older versions keeps
 * finding them; the SDK's types no longer declare them.
 */
export type LegacySubscription = Stripe.Subscription & { current_period_start: number; current_period_end: number }
export type LegacyInvoice = Stripe.Invoice & {
  subscription: string | null
  payment_intent: string | null
  charge: string | null
  paid: boolean
}

export type CustomerUpdateChoice = 'auto' | 'never'

/** `customer_update[...]`: what checkout may save onto the existing customer it names. */
export type CustomerUpdate = {
  name: CustomerUpdateChoice
  address: CustomerUpdateChoice
  shipping: CustomerUpdateChoice
}

/** What the buyer typed on the hosted checkout of an open session, before paying or leaving. */
export type BuyerEntries = { email: string | null; promotions: PromotionsConsent | null }

/** What a checkout session was created with that the session object itself does not show. */
export type CheckoutDetails = {
  lineItems: Stripe.LineItem[]
  paymentIntentMetadata: Stripe.Metadata
  subscriptionMetadata: Stripe.Metadata
  customerUpdate: CustomerUpdate
  entries: BuyerEntries
}

/** A recovery URL's token: the expired session it copies, and the copy it made last (none yet: null). */
export type RecoveryLink = { sessionId: string; copyId: string | null }

/** An answer kept for its Idempotency-Key: the JSON exactly as sent, so a replay is byte for byte the same. */
type StoredResponse = {
  method: string
  path: string
  rawBody: string
  status: number
  json: string
  requestId: string
}

export type State = {
  prices: Map<string, Stripe.Price>
  products: Map<string, Stripe.Product>
  coupons: Map<string, Stripe.Coupon>
  sessions: Map<string, Stripe.Checkout.Session>
  checkoutDetails: Map<string, CheckoutDetails>
  /** Recovery URLs of expired sessions, by their token. */
  recoveries: Map<string, RecoveryLink>
  /** Live customers only: a deleted one is refused wherever a customer is looked up. */
  customers: Map<string, Stripe.Customer>
  /** IDs of deleted customers: retrieving or expanding one answers the deleted customer object, as Stripe does. */
  deletedCustomers: Set<string>
  subscriptions: Map<string, LegacySubscription>
  paymentIntents: Map<string, Stripe.PaymentIntent>
  charges: Map<string, Stripe.Charge>
  invoices: Map<string, LegacyInvoice>
  disputes: Map<string, Stripe.Dispute>
  refunds: Map<string, Stripe.Refund>
  portalSessions: Map<string, Stripe.BillingPortal.Session>
  /** Tax rates the stand-in's tax table made, by `<country>:<percentage>`. */
  taxRates: Map<string, Stripe.TaxRate>
  /** Tax IDs checkout saved on customers, by ID. */
  taxIds: Map<string, Stripe.TaxId>
  /** Invoices without a customer (a guest's checkout) are numbered account-wide: `<prefix>-0001`, ... */
  invoiceNumbering: { prefix: string; next: number }
  requests: RecordedRequest[]
  /** Responses by Idempotency-Key, replayed when the key comes again. */
  idempotency: Map<string, StoredResponse>
}

export const createState = (prices: StandInPrice[]): State => {
  const state: State = {
    prices: new Map(),
    products: new Map(),
    coupons: new Map(),
    sessions: new Map(),
    checkoutDetails: new Map(),
    recoveries: new Map(),
    customers: new Map(),
    deletedCustomers: new Set(),
    subscriptions: new Map(),
    paymentIntents: new Map(),
    charges: new Map(),
    invoices: new Map(),
    disputes: new Map(),
    refunds: new Map(),
    portalSessions: new Map(),
    taxRates: new Map(),
    taxIds: new Map(),
    invoiceNumbering: { prefix: crypto.randomBytes(4).toString('hex').toUpperCase(), next: 1 },
    requests: [],
    idempotency: new Map(),
  }
  for (const entry of prices.map(catalogueEntry)) {
    state.prices.set(entry.price.id, entry.price)
    state.products.set(entry.product.id, entry.product)
  }
  return state
}

type Lookup = { param: string; status?: number }

/** Every lookup answers a missing object the way Stripe does, so API routes and actions share them. */
const required =
  <T>(resource: string, pick: (state: State) => Map<string, T>) =>
  (state: State, id: string, lookup: Lookup = { param: 'id' }): T => {
    const found = pick(state).get(id)
    if (!found) throw resourceMissing(resource, id, lookup)
    return found
  }

export const requireSession = required('checkout.session', (state) => state.sessions)

/** Every session has its details from its creation on. */
export const requireCheckoutDetails = (state: State, sessionId: string): CheckoutDetails => {
  const details = state.checkoutDetails.get(sessionId)
  if (!details) throw new Error(`checkout session ${sessionId} has no recorded details`)
  return details
}
export const requireCustomer = required('customer', (state) => state.customers)
export const requireSubscription = required('subscription', (state) => state.subscriptions)
export const requirePaymentIntent = required('payment_intent', (state) => state.paymentIntents)
export const requireCharge = required('charge', (state) => state.charges)
export const requireInvoice = required('invoice', (state) => state.invoices)
export const requireDispute = required('dispute', (state) => state.disputes)
export const requireRefund = required('refund', (state) => state.refunds)

const findTaxRate = (state: State, id: string): Stripe.TaxRate | undefined =>
  [...state.taxRates.values()].find((rate) => rate.id === id)

export const requireTaxRate = (state: State, id: string): Stripe.TaxRate => {
  const found = findTaxRate(state, id)
  if (!found) throw resourceMissing('tax_rate', id, { param: 'id' })
  return found
}

/** Prices of the other mode exist but cannot be used with this key; Stripe's message says so. */
export const requirePrice = (
  state: State,
  id: string,
  livemode: boolean,
  lookup: Lookup = { param: 'id' },
): Stripe.Price => {
  const price = state.prices.get(id)
  if (!price) throw resourceMissing('price', id, lookup)
  if (price.livemode !== livemode) {
    throw resourceMissing('price', id, { ...lookup, otherMode: price.livemode ? 'live' : 'test' })
  }
  return price
}

/** Coupons belong to one mode like prices; `valid` is brought up to date (a passed `redeem_by`) on every lookup. */
export const requireCoupon = (
  state: State,
  id: string,
  livemode: boolean,
  lookup: Lookup = { param: 'id' },
): Stripe.Coupon => {
  const coupon = state.coupons.get(id)
  if (!coupon) throw resourceMissing('coupon', id, lookup)
  if (coupon.livemode !== livemode) {
    throw resourceMissing('coupon', id, { ...lookup, otherMode: coupon.livemode ? 'live' : 'test' })
  }
  return refreshCouponValidity(coupon)
}

/** Stripe's `valid`: not redeemed `max_redemptions` times yet, and `redeem_by` not passed. */
export const refreshCouponValidity = (coupon: Stripe.Coupon): Stripe.Coupon => {
  const usedUp = coupon.max_redemptions !== null && coupon.times_redeemed >= coupon.max_redemptions
  const expired = coupon.redeem_by !== null && nowSeconds() > coupon.redeem_by
  coupon.valid = !usedUp && !expired
  return coupon
}

export const productName = (state: State, price: Stripe.Price): string => {
  const productId = typeof price.product === 'string' ? price.product : price.product.id
  return state.products.get(productId)?.name ?? price.id
}

/** The stored object an ID names, whatever its kind: what `expand[]` replaces IDs with. */
export const findById = (state: State, id: string): object | undefined => {
  const maps: Map<string, object>[] = [
    state.customers,
    state.subscriptions,
    state.paymentIntents,
    state.charges,
    state.invoices,
    state.disputes,
    state.refunds,
    state.prices,
    state.products,
    state.sessions,
    state.taxIds,
  ]
  for (const map of maps) {
    const found = map.get(id)
    if (found) return found
  }
  if (state.deletedCustomers.has(id)) return buildDeletedCustomer(id)
  const taxRate = findTaxRate(state, id)
  if (taxRate) return taxRate
  const coupon = state.coupons.get(id)
  return coupon ? refreshCouponValidity(coupon) : undefined
}

import type Stripe from 'stripe'

import type { Processor } from '../context'
import { fromFixture } from '../fixtures'
import { newId, nowSeconds } from '../ids'

export const buildLineItem = (price: Stripe.Price, quantity: number, description: string): Stripe.LineItem => {
  const amount = (price.unit_amount ?? 0) * quantity
  return fromFixture<Stripe.LineItem>('item', {
    id: newId('li'),
    adjustable_quantity: null,
    amount_discount: 0,
    amount_subtotal: amount,
    amount_tax: 0,
    amount_total: amount,
    currency: price.currency,
    description,
    metadata: {},
    price,
    quantity,
  })
}

/**
 * Spreads a session's discount over its line items in proportion to their subtotals (the last one
 * takes the rounding remainder), as each line item shows its `amount_discount`.
 */
export const applyLineDiscounts = (lineItems: Stripe.LineItem[], discount: number): void => {
  const subtotal = lineItems.reduce((sum, item) => sum + item.amount_subtotal, 0)
  let left = discount
  lineItems.forEach((item, index) => {
    const share =
      index === lineItems.length - 1 || subtotal === 0
        ? left
        : Math.min(left, Math.round((discount * item.amount_subtotal) / subtotal))
    item.amount_discount = share
    item.amount_total = item.amount_subtotal - share
    left -= share
  })
}

/** The coupon a session was created with and what it takes off. */
export type SessionDiscount = { coupon: string; amount: number }

export type SessionFields = {
  mode: 'payment' | 'subscription'
  lineItems: Stripe.LineItem[]
  customer: string | null
  customerEmail: string | null
  customerCreation: Stripe.Checkout.Session.CustomerCreation | null
  clientReferenceId: string | null
  metadata: Stripe.Metadata
  allowPromotionCodes: boolean | null
  discount: SessionDiscount | null
  successUrl: string | null
  cancelUrl: string | null
  automaticTax: boolean
  taxIdCollection: Stripe.Checkout.Session.TaxIdCollection
  /** Null in subscription mode: its invoices come with the subscription. */
  invoiceCreation: Stripe.Checkout.Session.InvoiceCreation | null
  created: number
  expiresAt: number
  /** Its recovery's `url` and `expires_at` stay null until the session expires. */
  afterExpiration: Stripe.Checkout.Session.AfterExpiration | null
  consentCollection: Stripe.Checkout.Session.ConsentCollection | null
  /** The expired session whose recovery URL made this one, else null. */
  recoveredFrom: string | null
}

/**
 * `automatic_tax` before checkout knows where the buyer is: Stripe Tax, the account liable, the
 * calculation waiting for the address checkout collects.
 */
const automaticTaxOf = (enabled: boolean): Stripe.Checkout.Session.AutomaticTax =>
  enabled
    ? { enabled: true, liability: { type: 'self' }, provider: 'stripe', status: 'requires_location_inputs' }
    : { enabled: false, liability: null, provider: null, status: null }

/**
 * An open session; its payment intent, subscription, customer details and consent appear once it is
 * paid (or, as far as the buyer consented, once it expired).
 */
export const buildCheckoutSession = (processor: Processor, fields: SessionFields): Stripe.Checkout.Session => {
  const id = newId(processor.livemode ? 'cs_live' : 'cs_test')
  const subtotal = fields.lineItems.reduce((sum, item) => sum + item.amount_subtotal, 0)
  const discount = fields.discount?.amount ?? 0
  return fromFixture<Stripe.Checkout.Session>('checkout.session', {
    id,
    after_expiration: fields.afterExpiration,
    allow_promotion_codes: fields.allowPromotionCodes,
    automatic_tax: automaticTaxOf(fields.automaticTax),
    amount_subtotal: subtotal,
    amount_total: Math.max(subtotal - discount, 0),
    cancel_url: fields.cancelUrl,
    client_reference_id: fields.clientReferenceId,
    consent: null,
    consent_collection: fields.consentCollection,
    created: fields.created,
    currency: fields.lineItems[0]?.currency ?? 'usd',
    customer: fields.customer,
    customer_creation: fields.customerCreation,
    customer_details: null,
    customer_email: fields.customerEmail,
    discounts: fields.discount ? [{ coupon: fields.discount.coupon, promotion_code: null }] : [],
    expires_at: fields.expiresAt,
    invoice: null,
    invoice_creation: fields.invoiceCreation,
    livemode: processor.livemode,
    metadata: fields.metadata,
    mode: fields.mode,
    payment_intent: null,
    payment_status: 'unpaid',
    recovered_from: fields.recoveredFrom,
    status: 'open',
    subscription: null,
    success_url: fields.successUrl,
    tax_id_collection: fields.taxIdCollection,
    total_details: { amount_discount: discount, amount_shipping: 0, amount_tax: 0 },
    ui_mode: 'hosted',
    url: `${processor.publicUrl}/checkout/${id}`,
  })
}

export const buildPortalSession = (
  processor: Processor,
  fields: { customer: string; returnUrl: string | null },
): Stripe.BillingPortal.Session => {
  const id = newId('bps')
  return fromFixture<Stripe.BillingPortal.Session>('billing_portal.session', {
    id,
    configuration: newId('bpc'),
    created: nowSeconds(),
    customer: fields.customer,
    livemode: processor.livemode,
    return_url: fields.returnUrl,
    url: `${processor.publicUrl}/portal/${id}`,
  })
}

import type Stripe from 'stripe'

import type { Processor } from '../context'
import { fromFixture } from '../fixtures'
import { newId, nowSeconds } from '../ids'
import type { LegacyInvoice } from '../state'
import { ACCOUNT_COUNTRY, legacyTaxEntry, taxEntry, type CollectedTaxId, type LineTax, type TaxRule } from '../tax'
import { invoiceTaxFields } from './billing'

export type CheckoutInvoiceFields = {
  lineItems: Stripe.LineItem[]
  currency: string
  invoiceData: Stripe.Checkout.Session.InvoiceCreation.InvoiceData
  customer: Stripe.Customer | null
  email: string
  name: string | null
  address: Stripe.Address | null
  taxIds: CollectedTaxId[]
  /** Null without automatic tax: the invoice shows no tax at all. */
  tax: TaxRule | null
}

/** One checkout line item as an invoice line: its price, its share of the discount, its tax. */
const buildLine = (
  processor: Processor,
  fields: { invoice: string; item: Stripe.LineItem; discount: string | null; tax: TaxRule | null; created: number },
): Stripe.InvoiceLineItem => {
  const { item, tax } = fields
  const invoiceItem = newId('ii')
  const price = item.price
  const taxed: LineTax = { taxable: item.amount_subtotal - item.amount_discount, amount: item.amount_tax }
  const discounted = fields.discount !== null && item.amount_discount > 0
  return fromFixture<Stripe.InvoiceLineItem>('line_item', {
    id: newId('il'),
    amount: item.amount_subtotal,
    amount_excluding_tax: item.amount_subtotal,
    currency: item.currency,
    description: item.description,
    discount_amounts: discounted ? [{ amount: item.amount_discount, discount: fields.discount }] : [],
    discountable: true,
    discounts: discounted ? [fields.discount] : [],
    invoice: fields.invoice,
    invoice_item: invoiceItem,
    livemode: processor.livemode,
    metadata: {},
    parent: {
      type: 'invoice_item_details',
      invoice_item_details: {
        invoice_item: invoiceItem,
        proration: false,
        proration_details: { credited_items: null },
        subscription: null,
      },
      subscription_item_details: null,
    },
    period: { start: fields.created, end: fields.created },
    pretax_credit_amounts: [],
    price,
    pricing: price
      ? {
          type: 'price_details',
          price_details: { price: price.id, product: price.product },
          unit_amount_decimal: price.unit_amount_decimal,
        }
      : null,
    quantity: item.quantity,
    subscription: null,
    subtotal: item.amount_subtotal,
    tax_amounts: tax ? [legacyTaxEntry(tax, taxed)] : [],
    taxes: tax ? [taxEntry(tax, taxed)] : [],
    type: 'invoiceitem',
    unit_amount_excluding_tax: price?.unit_amount_decimal ?? null,
  })
}

/**
 * The draft of a Checkout post-payment invoice (`invoice_creation`): the session's line items, discount
 * and tax, the buyer as checkout collected them, and `invoice_data`. It belongs to no subscription
 * (`parent: null`); finalizing numbers it and paying it marks it paid, as for subscription invoices.
 */
export const buildCheckoutInvoice = (processor: Processor, fields: CheckoutInvoiceFields): LegacyInvoice => {
  const id = newId('in')
  const created = nowSeconds()
  const { lineItems, invoiceData } = fields
  const sum = (pick: (item: Stripe.LineItem) => number) => lineItems.reduce((all, item) => all + pick(item), 0)
  const subtotal = sum((item) => item.amount_subtotal)
  const discount = sum((item) => item.amount_discount)
  const tax = sum((item) => item.amount_tax)
  const total = subtotal - discount + tax
  const discountId = discount > 0 ? newId('di') : null
  const lines = lineItems.map((item) =>
    buildLine(processor, { invoice: id, item, discount: discountId, tax: fields.tax, created }),
  )
  return fromFixture<LegacyInvoice>('invoice', {
    id,
    account_country: ACCOUNT_COUNTRY,
    account_name: null,
    account_tax_ids: null,
    amount_due: total,
    amount_overpaid: 0,
    amount_paid: 0,
    amount_remaining: total,
    amount_shipping: 0,
    attempt_count: 0,
    attempted: false,
    auto_advance: false,
    automatic_tax: { disabled_reason: null, enabled: false, liability: null, provider: null, status: null },
    automatically_finalizes_at: null,
    billing_reason: 'manual',
    charge: null,
    collection_method: 'charge_automatically',
    created,
    currency: fields.currency,
    custom_fields: invoiceData.custom_fields,
    customer: fields.customer?.id ?? null,
    customer_account: null,
    customer_address: fields.address,
    customer_email: fields.email,
    customer_name: fields.name,
    customer_phone: null,
    customer_shipping: null,
    customer_tax_exempt: 'none',
    customer_tax_ids: fields.taxIds.map((taxId) => ({ type: taxId.type, value: taxId.value })),
    description: invoiceData.description,
    discounts: discountId ? [discountId] : [],
    due_date: null,
    effective_at: null,
    ending_balance: 0,
    footer: invoiceData.footer,
    from_invoice: null,
    hosted_invoice_url: null,
    invoice_pdf: null,
    issuer: { type: 'self' },
    last_finalization_error: null,
    latest_revision: null,
    lines: { object: 'list', data: lines, has_more: false, total_count: lines.length, url: `/v1/invoices/${id}/lines` },
    livemode: processor.livemode,
    metadata: invoiceData.metadata ?? {},
    next_payment_attempt: null,
    number: null,
    on_behalf_of: null,
    paid: false,
    parent: null,
    payment_intent: null,
    period_end: created,
    period_start: created,
    post_payment_credit_notes_amount: 0,
    pre_payment_credit_notes_amount: 0,
    receipt_number: null,
    rendering: null,
    shipping_cost: null,
    shipping_details: null,
    starting_balance: 0,
    statement_descriptor: null,
    status: 'draft',
    status_transitions: { finalized_at: null, marked_uncollectible_at: null, paid_at: null, voided_at: null },
    subscription: null,
    subtotal,
    subtotal_excluding_tax: subtotal,
    total,
    total_discount_amounts: discountId ? [{ amount: discount, discount: discountId }] : [],
    total_excluding_tax: subtotal - discount,
    total_pretax_credit_amounts: [],
    ...invoiceTaxFields(fields.tax, { taxable: subtotal - discount, amount: tax }),
    webhooks_delivered_at: null,
  })
}

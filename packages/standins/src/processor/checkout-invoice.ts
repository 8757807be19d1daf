import type Stripe from 'stripe'

import type { Processor } from './context'
import { finalizeInvoice, markInvoicePaid } from './objects/billing'
import { buildCheckoutInvoice, type CheckoutInvoiceFields } from './objects/invoice'
import type { LegacyInvoice } from './state'

/**
 * A Checkout post-payment invoice (`invoice_creation[enabled]`), made once the payment succeeded: drafted
 * (`invoice.created`), numbered with its hosted page and PDF (`invoice.finalized`), and paid by the
 * session's payment (`invoice.paid`, `invoice.payment_succeeded`). `GET /v1/invoice_payments` traces the
 * payment intent to it. Stripe documents `invoice.paid` for these invoices; the other three are the
 * events any invoice goes through.
 */
export const createCheckoutInvoice = (
  processor: Processor,
  fields: CheckoutInvoiceFields & { payment: { paymentIntent: Stripe.PaymentIntent; charge: Stripe.Charge } | null },
): { invoice: LegacyInvoice; events: Stripe.Event[] } => {
  const invoice = buildCheckoutInvoice(processor, fields)
  processor.state.invoices.set(invoice.id, invoice)
  const created = processor.events.create('invoice.created', invoice)
  finalizeInvoice(processor, invoice, fields.customer)
  const finalized = processor.events.create('invoice.finalized', invoice)
  markInvoicePaid(invoice, fields.payment)
  return {
    invoice,
    events: [
      created,
      finalized,
      processor.events.create('invoice.paid', invoice),
      processor.events.create('invoice.payment_succeeded', invoice),
    ],
  }
}

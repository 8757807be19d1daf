import './../support/billing-env'

import type Stripe from 'stripe'
import { beforeAll, describe, expect, it } from 'vitest'

import { billingRuntimeOf } from '../../src/billing/runtime'
import { processEvent } from '../../src/billing/webhook/process'
import { PRICES, smtp, standIn } from '../support/billing-env'
import { buy, rows, seedStandInPlans } from '../support/billing'
import { api, createUser, type TestUser, usePayload } from '../support/payload'
import { quietly } from '../support/webhook'

/** Invoices and tax (docs/BILLING.md) end to end: our checkout, the stand-in over HTTP, its webhooks. */
const payload = usePayload()
const settings = { graceDays: 7 }
const billing = () => billingRuntimeOf(payload()).require()

beforeAll(async () => {
  await seedStandInPlans(payload())
})

const paymentsOf = (buyer: TestUser) => rows(payload(), 'payment_history', { user: { equals: buyer.user.id } })

const sessionOf = async (id: string) => billing().processor.checkout.sessions.retrieve(id)

/** Run with automatic tax switched on (PAYMENT_AUTOMATIC_TAX), as a seller who registered for tax does. */
const withAutomaticTax = async <T>(work: () => Promise<T>): Promise<T> => {
  billing().taxes.automaticTax = true
  try {
    return await work()
  } finally {
    billing().taxes.automaticTax = false
  }
}

describe('checkout asks for tax and invoices as the processor documents them', () => {
  it('a first purchase: tax ID collection, an invoice naming the plan, a customer always created', async () => {
    const buyer = await createUser(payload(), 'customer')
    const checkout = await api('POST', '/checkout_sessions', { as: buyer, body: { priceId: PRICES.standard } })
    expect(checkout.status).toBe(200)
    const session = await sessionOf(checkout.body.id)
    expect(session.tax_id_collection?.enabled).toBe(true)
    expect(session.invoice_creation).toMatchObject({
      enabled: true,
      invoice_data: { metadata: { plan_id: 'standard', user_id: String(buyer.user.id) } },
    })
    expect(session.customer_creation).toBe('always')
    expect(session.automatic_tax?.enabled).toBe(false)
  })

  it('a returning customer: the name and address updated on the customer, which the processor requires for a tax ID', async () => {
    const buyer = await createUser(payload(), 'customer')
    await buy(PRICES.standard, { as: buyer })
    await standIn.settled()
    // The processor refuses tax ID collection for an existing customer without customer_update[name]=auto,
    // and automatic tax for a customer with no address without customer_update[address]=auto (the
    // stand-in as the real API; tests/int/processor-standin-invoices.test.ts): a session made proves both were sent.
    const checkout = await withAutomaticTax(() =>
      api('POST', '/checkout_sessions', { as: buyer, body: { priceId: PRICES.ultimate } }),
    )
    expect(checkout.status, JSON.stringify(checkout.body)).toBe(200)
    const session = await sessionOf(checkout.body.id)
    expect(session.customer).toBeTruthy()
    expect(session.automatic_tax?.enabled).toBe(true)
    expect(session.tax_id_collection?.enabled).toBe(true)
  })

  it('a subscription is invoiced by the processor anyway: no invoice_creation in subscription mode', async () => {
    const buyer = await createUser(payload(), 'customer')
    const checkout = await api('POST', '/checkout_sessions', { as: buyer, body: { priceId: PRICES.proMonthly } })
    expect(checkout.status).toBe(200)
    const session = await sessionOf(checkout.body.id)
    expect(session.invoice_creation?.enabled ?? false).toBe(false)
    expect(session.tax_id_collection?.enabled).toBe(true)
  })

  it('a processor that refuses the session: a clear 502, nothing recorded', async () => {
    const buyer = await createUser(payload(), 'customer')
    standIn.failNext({
      method: 'POST',
      path: '/v1/checkout/sessions',
      status: 400,
      body: {
        error: {
          type: 'invalid_request_error',
          message: 'Tax ID collection requires updating business name on the customer.',
        },
      },
    })
    const checkout = await api('POST', '/checkout_sessions', { as: buyer, body: { priceId: PRICES.standard } })
    expect(checkout.status).toBe(502)
    expect(checkout.body.errors[0].code).toBe('processor_unavailable')
    expect(await paymentsOf(buyer)).toEqual([])
    expect(await rows(payload(), 'one_time_purchases', { user: { equals: buyer.user.id } })).toEqual([])
  })
})

describe('the invoice completes the payment row', () => {
  it('a one-time purchase: one payment row with the hosted invoice, its PDF, number, tax and plan; the license email links it', async () => {
    const buyer = await createUser(payload(), 'customer')
    await buy(PRICES.standard, { as: buyer })
    await standIn.settled()
    const payments = await paymentsOf(buyer)
    expect(payments).toHaveLength(1)
    const [payment] = payments
    expect(payment).toMatchObject({
      amount: 14900,
      currency: 'usd',
      status: 'succeeded',
      paymentType: 'one_time',
      taxAmount: 0,
    })
    expect(payment!.processorInvoiceId).toMatch(/^in_/)
    expect(payment!.invoiceNumber).toBeTruthy()
    expect(payment!.invoiceUrl).toContain(`/invoices/${payment!.processorInvoiceId}`)
    expect(payment!.invoicePdf).toContain(`/invoices/${payment!.processorInvoiceId}/pdf`)
    const plan = (await payload().find({ collection: 'plans', where: { slug: { equals: 'standard' } }, depth: 0 }))
      .docs[0]!
    expect(payment!.plan).toBe(plan.id)
    const pdf = await fetch(payment!.invoicePdf!)
    expect(pdf.headers.get('content-type')).toContain('application/pdf')
    expect((await pdf.text()).startsWith('%PDF-')).toBe(true)
    await payload().jobs.run()
    const email = await smtp.waitFor(
      (message) => JSON.stringify(message.to ?? '').includes(buyer.email) && /license/i.test(message.subject ?? ''),
    )
    expect(email.text).toContain(payment!.invoiceUrl!)
  })

  it('with automatic tax: the tax is computed at checkout, charged, and on the row', async () => {
    const buyer = await createUser(payload(), 'customer')
    await withAutomaticTax(async () => {
      const checkout = await api('POST', '/checkout_sessions', { as: buyer, body: { priceId: PRICES.standard } })
      await standIn.pay(checkout.body.id, { email: buyer.email, country: 'DE' })
      await standIn.settled()
    })
    const [payment] = await paymentsOf(buyer)
    expect(payment).toMatchObject({ amount: 14900 + 2831, taxAmount: 2831 })
  })

  it('events in every order and duplicated: one row per payment, with the invoice', async () => {
    const buyer = await createUser(payload(), 'customer')
    const { events } = await quietly(() => buy(PRICES.standard, { as: buyer }))
    const processor = billing().processor
    for (const order of [[...events].reverse(), events]) {
      for (const event of order) expect(await processEvent(payload(), processor, event, settings)).not.toBe('failed')
      for (const event of order)
        await processEvent(payload(), processor, { ...event, id: `${event.id}_again_${order === events}` }, settings)
    }
    const payments = await paymentsOf(buyer)
    expect(payments).toHaveLength(1)
    expect(payments[0]).toMatchObject({ amount: 14900, status: 'succeeded' })
    expect(payments[0]!.processorInvoiceId).toMatch(/^in_/)
    expect(await rows(payload(), 'licenses', { user: { equals: buyer.user.id } })).toHaveLength(1)
  })

  it('an invoice never links a payment to an account its payment does not name', async () => {
    const buyer = await createUser(payload(), 'customer')
    const other = await createUser(payload(), 'customer')
    const { events } = await quietly(() => buy(PRICES.standard, { as: buyer }))
    const paid = events.find((event) => event.type === 'invoice.paid')!
    const invoice = paid.data.object
    // The invoice arrives first, naming another account in its metadata.
    const tampered = {
      ...paid,
      id: `${paid.id}_tampered`,
      data: { object: { ...invoice, metadata: { ...invoice.metadata, user_id: String(other.user.id) } } },
    } as Stripe.Event
    expect(await processEvent(payload(), billing().processor, tampered, settings)).toBe('processed')
    for (const event of events) await processEvent(payload(), billing().processor, event, settings)
    expect(await paymentsOf(other)).toEqual([])
    expect(await paymentsOf(buyer)).toHaveLength(1)
  })

  it('a partial refund shows on the row, the invoice kept', async () => {
    const buyer = await createUser(payload(), 'customer')
    const { events } = await buy(PRICES.standard, { as: buyer })
    await standIn.settled()
    const charge = events.find((event) => event.type === 'charge.succeeded')!.data.object
    await standIn.refund(charge.id, 4000)
    await standIn.settled()
    const [payment] = await paymentsOf(buyer)
    expect(payment).toMatchObject({ amount: 14900, refundedAmount: 4000 })
    expect(payment!.processorInvoiceId).toMatch(/^in_/)
  })

  it('staff see the payments with their invoices on the customer view; another customer sees none of them', async () => {
    const buyer = await createUser(payload(), 'customer')
    await buy(PRICES.standard, { as: buyer })
    await standIn.settled()
    const stranger = await createUser(payload(), 'customer')
    const seen = await api('GET', `/payment_history?where[user][equals]=${buyer.user.id}`, { as: stranger })
    expect(seen.body.totalDocs).toBe(0)
    const own = await api('GET', '/payment_history', { as: buyer })
    expect(own.body.docs[0]).toMatchObject({
      invoiceNumber: expect.any(String),
      invoicePdf: expect.stringContaining('/pdf'),
    })
  })
})

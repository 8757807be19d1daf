import http from 'node:http'
import type { AddressInfo } from 'node:net'

import Stripe from 'stripe'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'

import { startProcessorStandIn, type ProcessorStandIn } from '../src/processor'
import { idIn, sdkFor, standInCatalogue } from './sdk'

/**
 * Checkout's tax and invoice parameters through the real SDK: `automatic_tax`, `tax_id_collection`,
 * `customer_update`, `invoice_creation`, the invoices they make (API, hosted page, PDF, invoice
 * payments) and their webhooks. A stand-in of its own, so these events stay out of the other stand-in
 * tests' exact event lists.
 *
 * The stand-in's tax table (src/processor/tax.ts): prices are tax-exclusive; DE 19%, FR 20%,
 * NL 21% VAT; a buyer with a tax ID in a VAT country is reverse charged (0); the US is not taxed; the
 * default country is DE.
 */

const SECRET_KEY = 'sk_test_standin_invoices_0123456789'
const WEBHOOK_SECRET = 'whsec_standin_invoices_0123456789'
/** $149.00 one-time, usd. */
const LIFETIME = 'price_standin_standard_lifetime'
/** $299.00 one-time, usd. */
const ULTIMATE = 'price_standin_ultimate_lifetime'
/** €50.00 one-time. */
const EURO = 'price_invoices_euro'
/** $29.00 a month. */
const MONTHLY = 'price_standin_pro_monthly'
const SUCCESS_URL = 'https://app.example/thanks?session_id={CHECKOUT_SESSION_ID}'

const NEEDS_ADDRESS =
  "Automatic tax calculation in Checkout requires a valid address on the Customer. Add a valid address to the Customer or set either `customer_update[address]` to 'auto' or `customer_update[shipping]` to 'auto' to save the address entered in Checkout to the Customer."
const NEEDS_NAME =
  'Tax ID collection requires updating business name on the customer. To enable tax ID collection for an existing customer, please set `customer_update[name]` to `auto`.'
const INVOICE_PAYMENT_MODE =
  'You can only enable invoice creation when `mode` is set to `payment`. Invoices are created automatically when `mode` is set to `subscription`, and are unsupported when set to `setup`. To learn more visit https://stripe.com/docs/payments/checkout/post-payment-invoices.'

type Received = { event: Stripe.Event }

/** The service's webhook endpoint, reduced to what the tests look at: events whose signature verified. */
const startReceiver = async (verifier: Stripe) => {
  const received: Received[] = []
  const rejected: string[] = []
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      try {
        const signature = String(req.headers['stripe-signature'])
        received.push({ event: verifier.webhooks.constructEvent(Buffer.concat(chunks), signature, WEBHOOK_SECRET) })
      } catch (error) {
        rejected.push(error instanceof Error ? error.message : String(error))
      }
      res.statusCode = 200
      res.end('{}')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhook`,
    received,
    rejected,
    clear: () => {
      received.length = 0
      rejected.length = 0
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

let standIn: ProcessorStandIn
let stripe: Stripe
let receiver: Awaited<ReturnType<typeof startReceiver>>

beforeAll(async () => {
  receiver = await startReceiver(new Stripe(SECRET_KEY))
  standIn = await startProcessorStandIn({
    secretKey: SECRET_KEY,
    webhookSecret: WEBHOOK_SECRET,
    webhookUrl: receiver.url,
    prices: standInCatalogue(EURO),
  })
  stripe = sdkFor(standIn, SECRET_KEY)
})

afterAll(async () => {
  await standIn.close()
  await receiver.close()
})

beforeEach(async () => {
  // Events of earlier API calls (customers.create, coupons.create) are delivered after their answer.
  await standIn.settled()
  receiver.clear()
})

const types = (events: Stripe.Event[]) => events.map((event) => event.type)
const eventOf = (events: Stripe.Event[], type: string): Stripe.Event => {
  const found = events.find((event) => event.type === type)
  if (!found) throw new Error(`no ${type} among ${types(events).join(', ')}`)
  return found
}
const objectOf = <T>(events: Stripe.Event[], type: string): T => eventOf(events, type).data.object as T

const session = (fields: Partial<Stripe.Checkout.SessionCreateParams> = {}) =>
  stripe.checkout.sessions.create({
    mode: 'payment',
    line_items: [{ price: LIFETIME, quantity: 1 }],
    success_url: SUCCESS_URL,
    ...fields,
  })

/** A session with invoice_creation, as the service makes them (DESIGN section 12). */
const invoicedSession = (fields: Partial<Stripe.Checkout.SessionCreateParams> = {}) =>
  session({
    invoice_creation: {
      enabled: true,
      invoice_data: {
        metadata: { plan: 'standard', license: 'lic_42' },
        description: 'Standard license, lifetime updates',
        footer: 'Thank you for your purchase.',
      },
    },
    ...fields,
  })

/** Params the SDK's types would not let through, as a misconfigured integration sends them. */
const untyped = (params: Record<string, unknown>) => params as unknown as Stripe.Checkout.SessionCreateParams

const paid = async (sessionId: string) => {
  const completed = await stripe.checkout.sessions.retrieve(sessionId)
  const paymentIntent = await stripe.paymentIntents.retrieve(idIn(completed.payment_intent))
  const charge = await stripe.charges.retrieve(idIn(paymentIntent.latest_charge))
  return { completed, paymentIntent, charge }
}

/** Every byte offset in the cross-reference table points at its object, and the file ends as a PDF does. */
const expectWellFormedPdf = (pdf: string) => {
  expect(pdf.startsWith('%PDF-1.4\n')).toBe(true)
  expect(pdf.endsWith('%%EOF\n')).toBe(true)
  const startxref = Number(/startxref\n(\d+)\n%%EOF\n$/.exec(pdf)?.[1])
  expect(pdf.slice(startxref, startxref + 4)).toBe('xref')
  const offsets = [...pdf.slice(startxref).matchAll(/^(\d{10}) 00000 n $/gm)].map((match) => Number(match[1]))
  expect(offsets).toHaveLength(5)
  offsets.forEach((offset, index) => expect(pdf.slice(offset, offset + 8)).toBe(`${index + 1} 0 obj\n`))
  const stream = /<< \/Length (\d+) >>\nstream\n/.exec(pdf)
  const start = (stream?.index ?? 0) + (stream?.[0].length ?? 0)
  expect(pdf.slice(start + Number(stream?.[1]), start + Number(stream?.[1]) + 11)).toBe('\nendstream\n')
}

describe('creating sessions with tax and invoice parameters', () => {
  it('shows the parameters as Stripe does, disabled by default', async () => {
    const plain = await session()
    expect(plain).toMatchObject({
      automatic_tax: { enabled: false, liability: null, provider: null, status: null },
      tax_id_collection: { enabled: false, required: 'never' },
      invoice_creation: {
        enabled: false,
        invoice_data: {
          account_tax_ids: null,
          custom_fields: null,
          description: null,
          footer: null,
          issuer: null,
          metadata: {},
          rendering_options: null,
        },
      },
      total_details: { amount_discount: 0, amount_shipping: 0, amount_tax: 0 },
      amount_total: 14900,
      invoice: null,
    })

    const full = await invoicedSession({
      automatic_tax: { enabled: true },
      tax_id_collection: { enabled: true, required: 'if_supported' },
      customer_creation: 'always',
    })
    expect(full).toMatchObject({
      automatic_tax: {
        enabled: true,
        liability: { type: 'self' },
        provider: 'stripe',
        status: 'requires_location_inputs',
      },
      tax_id_collection: { enabled: true, required: 'if_supported' },
      invoice_creation: {
        enabled: true,
        invoice_data: {
          metadata: { plan: 'standard', license: 'lic_42' },
          description: 'Standard license, lifetime updates',
          footer: 'Thank you for your purchase.',
        },
      },
      // No address yet: the tax is calculated at payment.
      amount_subtotal: 14900,
      amount_total: 14900,
      total_details: { amount_tax: 0 },
    })

    const subscription = await stripe.checkout.sessions.create({
      mode: 'subscription',
      line_items: [{ price: MONTHLY, quantity: 1 }],
      success_url: SUCCESS_URL,
    })
    expect(subscription.invoice_creation).toBeNull()
  })

  it('taxes an existing customer with an address at once', async () => {
    const customer = await stripe.customers.create({
      email: 'fr@example.com',
      address: { country: 'FR', city: 'Paris' },
    })
    expect(customer.address).toEqual({
      city: 'Paris',
      country: 'FR',
      line1: null,
      line2: null,
      postal_code: null,
      state: null,
    })
    const created = await session({ customer: customer.id, automatic_tax: { enabled: true } })
    expect(created).toMatchObject({
      automatic_tax: { enabled: true, status: 'complete' },
      amount_subtotal: 14900,
      amount_total: 17880,
      total_details: { amount_tax: 2980 },
    })
    const [line] = (await stripe.checkout.sessions.listLineItems(created.id)).data
    expect(line).toMatchObject({ amount_subtotal: 14900, amount_tax: 2980, amount_total: 17880 })
  })

  it('refuses automatic tax for an existing customer without an address unless checkout may save one', async () => {
    const customer = await stripe.customers.create({ email: 'nowhere@example.com' })
    const before = standIn.state.sessions.size
    const attempt = session({ customer: customer.id, automatic_tax: { enabled: true } })
    await expect(attempt).rejects.toBeInstanceOf(Stripe.errors.StripeInvalidRequestError)
    await expect(attempt).rejects.toMatchObject({
      statusCode: 400,
      code: 'customer_tax_location_invalid',
      param: 'automatic_tax[enabled]',
      message: NEEDS_ADDRESS,
    })
    await expect(
      session({ customer: customer.id, automatic_tax: { enabled: true }, customer_update: { name: 'auto' } }),
    ).rejects.toMatchObject({ message: NEEDS_ADDRESS })
    expect(standIn.state.sessions.size).toBe(before)

    await expect(
      session({ customer: customer.id, automatic_tax: { enabled: true }, customer_update: { address: 'auto' } }),
    ).resolves.toMatchObject({ automatic_tax: { enabled: true, status: 'requires_location_inputs' } })
    await expect(
      session({ customer: customer.id, automatic_tax: { enabled: true }, customer_update: { shipping: 'auto' } }),
    ).resolves.toMatchObject({ automatic_tax: { enabled: true } })
    // Guests and new customers give their address in checkout.
    await expect(session({ automatic_tax: { enabled: true } })).resolves.toMatchObject({ customer: null })
  })

  it('refuses tax ID collection for an existing customer without customer_update[name]=auto', async () => {
    const customer = await stripe.customers.create({ email: 'business@example.com' })
    const attempt = session({ customer: customer.id, tax_id_collection: { enabled: true } })
    await expect(attempt).rejects.toBeInstanceOf(Stripe.errors.StripeInvalidRequestError)
    await expect(attempt).rejects.toMatchObject({
      statusCode: 400,
      param: 'tax_id_collection[enabled]',
      message: NEEDS_NAME,
    })
    await expect(
      session({
        customer: customer.id,
        tax_id_collection: { enabled: true },
        customer_update: { name: 'never', address: 'auto' },
      }),
    ).rejects.toMatchObject({ message: NEEDS_NAME })

    await expect(
      session({ customer: customer.id, tax_id_collection: { enabled: true }, customer_update: { name: 'auto' } }),
    ).resolves.toMatchObject({ tax_id_collection: { enabled: true, required: 'never' } })
    await expect(session({ tax_id_collection: { enabled: true } })).resolves.toMatchObject({
      tax_id_collection: { enabled: true },
    })
  })

  it('refuses customer_update without a customer, and values other than auto or never', async () => {
    const customer = await stripe.customers.create({ email: 'update@example.com' })
    const refusals: [Record<string, unknown>, Record<string, unknown>][] = [
      [
        { customer_update: { name: 'auto' } },
        { param: 'customer_update', message: '`customer_update` can only be used with `customer`.' },
      ],
      [
        { customer_email: 'guest@example.com', customer_update: { address: 'auto' } },
        { param: 'customer_update', message: '`customer_update` can only be used with `customer`.' },
      ],
      [
        { customer: customer.id, customer_update: { name: 'always' } },
        { param: 'customer_update[name]', message: 'Invalid customer_update[name]: must be one of auto or never' },
      ],
      [
        { customer: customer.id, customer_update: { email: 'auto' } },
        { param: 'customer_update[email]', message: 'Received unknown parameter: customer_update[email]' },
      ],
      [
        { tax_id_collection: { required: 'never' } },
        {
          param: 'tax_id_collection[enabled]',
          code: 'parameter_missing',
          message: 'Missing required param: tax_id_collection[enabled].',
        },
      ],
      [
        { tax_id_collection: { enabled: true, required: 'always' } },
        {
          param: 'tax_id_collection[required]',
          message: 'Invalid tax_id_collection[required]: must be one of if_supported or never',
        },
      ],
      [{ automatic_tax: { enabled: 'yes' } }, { param: 'automatic_tax[enabled]', message: 'Invalid boolean: yes' }],
      [
        { invoice_creation: { invoice_data: { metadata: { plan: 'x' } } } },
        {
          param: 'invoice_creation[enabled]',
          code: 'parameter_missing',
          message: 'Missing required param: invoice_creation[enabled].',
        },
      ],
    ]
    const before = standIn.state.sessions.size
    for (const [params, expected] of refusals) {
      const attempt = session(untyped(params))
      await expect(attempt, JSON.stringify(params)).rejects.toBeInstanceOf(Stripe.errors.StripeInvalidRequestError)
      await expect(attempt, JSON.stringify(params)).rejects.toMatchObject({ statusCode: 400, ...expected })
    }
    expect(standIn.state.sessions.size).toBe(before)
    await expect(
      session({ customer: customer.id, customer_update: { name: 'never', address: 'auto' } }),
    ).resolves.toMatchObject({
      customer: customer.id,
    })
  })

  it('refuses invoice_creation in subscription mode', async () => {
    const attempt = stripe.checkout.sessions.create({
      mode: 'subscription',
      line_items: [{ price: MONTHLY, quantity: 1 }],
      success_url: SUCCESS_URL,
      invoice_creation: { enabled: true },
    })
    await expect(attempt).rejects.toBeInstanceOf(Stripe.errors.StripeInvalidRequestError)
    await expect(attempt).rejects.toMatchObject({
      statusCode: 400,
      param: 'invoice_creation',
      message: INVOICE_PAYMENT_MODE,
    })
    // Not enabling it is no mistake.
    await expect(
      stripe.checkout.sessions.create({
        mode: 'subscription',
        line_items: [{ price: MONTHLY, quantity: 1 }],
        success_url: SUCCESS_URL,
        invoice_creation: { enabled: false },
      }),
    ).resolves.toMatchObject({ invoice_creation: null })
  })
})

describe('automatic tax at payment', () => {
  it('adds the tax of the buyer’s country to the total the payment intent and charge are for', async () => {
    // No country given: the default, DE at 19%.
    const german = await session({ automatic_tax: { enabled: true }, customer_email: 'de@example.com' })
    const events = await standIn.pay(german.id)
    expect(types(events).sort()).toEqual(['charge.succeeded', 'checkout.session.completed', 'payment_intent.succeeded'])
    const de = await paid(german.id)
    expect(de.completed).toMatchObject({
      status: 'complete',
      payment_status: 'paid',
      amount_subtotal: 14900,
      amount_total: 17731,
      total_details: { amount_discount: 0, amount_shipping: 0, amount_tax: 2831 },
      automatic_tax: { enabled: true, status: 'complete' },
      customer_details: {
        email: 'de@example.com',
        address: { country: 'DE', city: null, line1: null, line2: null, postal_code: null, state: null },
        tax_ids: [],
        business_name: null,
      },
      invoice: null,
    })
    expect(objectOf<Stripe.Checkout.Session>(events, 'checkout.session.completed').amount_total).toBe(17731)
    expect(de.paymentIntent).toMatchObject({ amount: 17731, amount_received: 17731, status: 'succeeded' })
    expect(de.charge).toMatchObject({ amount: 17731, amount_captured: 17731 })
    expect(de.charge.billing_details.address?.country).toBe('DE')
    const [line] = (await stripe.checkout.sessions.listLineItems(german.id)).data
    expect(line).toMatchObject({ amount_subtotal: 14900, amount_discount: 0, amount_tax: 2831, amount_total: 17731 })

    const french = await session({ automatic_tax: { enabled: true } })
    await standIn.pay(french.id, { country: 'fr' })
    expect((await paid(french.id)).charge.amount).toBe(17880)

    const american = await session({ automatic_tax: { enabled: true } })
    await standIn.pay(american.id, { country: 'US' })
    const us = await paid(american.id)
    expect(us.completed).toMatchObject({ amount_total: 14900, total_details: { amount_tax: 0 } })
    expect(us.charge.amount).toBe(14900)
  })

  it('taxes what is left after the discount, line by line, in the session’s currency', async () => {
    const coupon = await stripe.coupons.create({ percent_off: 20 })
    const discounted = await session({ automatic_tax: { enabled: true }, discounts: [{ coupon: coupon.id }] })
    await standIn.pay(discounted.id, { country: 'FR' })
    const { completed, charge } = await paid(discounted.id)
    // (14900 - 2980) × 20% = 2384
    expect(completed).toMatchObject({
      amount_subtotal: 14900,
      amount_total: 14304,
      total_details: { amount_discount: 2980, amount_tax: 2384 },
    })
    expect(charge.amount).toBe(14304)

    const two = await session({
      automatic_tax: { enabled: true },
      line_items: [
        { price: LIFETIME, quantity: 1 },
        { price: ULTIMATE, quantity: 1 },
      ],
    })
    await standIn.pay(two.id, { country: 'DE' })
    const lines = (await stripe.checkout.sessions.listLineItems(two.id)).data
    expect(lines.map((item) => item.amount_tax)).toEqual([2831, 5681])
    expect((await stripe.checkout.sessions.retrieve(two.id)).amount_total).toBe(53312)

    const euro = await session({ automatic_tax: { enabled: true }, line_items: [{ price: EURO, quantity: 1 }] })
    await standIn.pay(euro.id, { country: 'NL' })
    expect((await paid(euro.id)).charge).toMatchObject({ amount: 6050, currency: 'eur' })
  })

  it('charges a retry after a declined card for the country entered then', async () => {
    const created = await session({ automatic_tax: { enabled: true } })
    const declined = await standIn.pay(created.id, { outcome: 'declined', country: 'DE' })
    expect(objectOf<Stripe.PaymentIntent>(declined, 'payment_intent.payment_failed').amount).toBe(17731)
    await standIn.pay(created.id, { country: 'US' })
    const { paymentIntent, charge } = await paid(created.id)
    expect(paymentIntent.id).toBe(objectOf<Stripe.PaymentIntent>(declined, 'payment_intent.payment_failed').id)
    expect(paymentIntent.amount).toBe(14900)
    expect(charge.amount).toBe(14900)
  })

  it('refuses an invalid country, and charges nothing', async () => {
    const created = await session({ automatic_tax: { enabled: true } })
    const charges = standIn.state.charges.size
    await expect(standIn.pay(created.id, { country: 'Germany' })).rejects.toMatchObject({
      status: 400,
      message: 'Invalid country: Germany',
    })
    expect(standIn.state.charges.size).toBe(charges)
    expect((await stripe.checkout.sessions.retrieve(created.id)).status).toBe('open')
  })

  it('taxes a subscription’s first invoice and its renewals where the customer is', async () => {
    const created = await stripe.checkout.sessions.create({
      mode: 'subscription',
      line_items: [{ price: MONTHLY, quantity: 1 }],
      success_url: SUCCESS_URL,
      automatic_tax: { enabled: true },
    })
    const events = await standIn.pay(created.id, { country: 'NL' })
    const completed = await stripe.checkout.sessions.retrieve(created.id)
    // 2900 × 21% = 609
    expect(completed).toMatchObject({ amount_total: 3509, total_details: { amount_tax: 609 } })
    const first = await stripe.invoices.retrieve(idIn(completed.invoice))
    expect(first).toMatchObject({
      subtotal: 2900,
      total: 3509,
      amount_due: 3509,
      amount_paid: 3509,
      automatic_tax: { enabled: true, status: 'complete' },
      total_taxes: [
        { amount: 609, taxability_reason: 'standard_rated', taxable_amount: 2900, tax_behavior: 'exclusive' },
      ],
    })
    expect(objectOf<Stripe.Charge>(events, 'charge.succeeded').amount).toBe(3509)
    const customer = await stripe.customers.retrieve(idIn(completed.customer))
    expect((customer as Stripe.Customer).address?.country).toBe('NL')

    const subscriptionId = idIn(completed.subscription)
    expect((await stripe.subscriptions.retrieve(subscriptionId)).automatic_tax).toEqual({
      disabled_reason: null,
      enabled: true,
      liability: { type: 'self' },
    })
    const renewal = await standIn.renewSubscription(subscriptionId)
    expect(objectOf<Stripe.Invoice>(renewal, 'invoice.paid')).toMatchObject({ total: 3509, amount_paid: 3509 })
    expect(objectOf<Stripe.Charge>(renewal, 'charge.succeeded').amount).toBe(3509)
  })
})

describe('tax ID collection', () => {
  it('puts the tax ID and business name on customer_details, the new customer and the invoice; reverse charged', async () => {
    const created = await invoicedSession({
      automatic_tax: { enabled: true },
      tax_id_collection: { enabled: true },
      customer_creation: 'always',
      customer_email: 'acme@example.com',
    })
    const events = await standIn.pay(created.id, {
      country: 'DE',
      taxId: { type: 'eu_vat', value: 'de123456789' },
      businessName: 'Acme GmbH',
    })
    expect(types(events).sort()).toEqual([
      'charge.succeeded',
      'checkout.session.completed',
      'customer.created',
      'customer.tax_id.created',
      'invoice.created',
      'invoice.finalized',
      'invoice.paid',
      'invoice.payment_succeeded',
      'payment_intent.succeeded',
    ])
    const completed = await stripe.checkout.sessions.retrieve(created.id)
    expect(completed).toMatchObject({
      customer_details: {
        email: 'acme@example.com',
        name: 'Acme GmbH',
        business_name: 'Acme GmbH',
        address: { country: 'DE' },
        tax_ids: [{ type: 'eu_vat', value: 'DE123456789' }],
      },
      // A business in the EU buying from abroad: reverse charge, no VAT.
      amount_total: 14900,
      total_details: { amount_tax: 0 },
    })
    const customerId = idIn(completed.customer)
    expect(await stripe.customers.retrieve(customerId)).toMatchObject({
      name: 'Acme GmbH',
      email: 'acme@example.com',
      address: { country: 'DE' },
    })
    const taxIds = await stripe.customers.listTaxIds(customerId)
    expect(taxIds.data).toHaveLength(1)
    expect(taxIds.data[0]).toMatchObject({
      object: 'tax_id',
      type: 'eu_vat',
      value: 'DE123456789',
      country: 'DE',
      customer: customerId,
    })
    expect(objectOf<Stripe.TaxId>(events, 'customer.tax_id.created').id).toBe(taxIds.data[0]?.id)

    const invoice = await stripe.invoices.retrieve(idIn(completed.invoice))
    expect(invoice).toMatchObject({
      customer: customerId,
      customer_name: 'Acme GmbH',
      customer_email: 'acme@example.com',
      customer_tax_ids: [{ type: 'eu_vat', value: 'DE123456789' }],
      customer_address: { country: 'DE' },
      subtotal: 14900,
      total: 14900,
      total_taxes: [{ amount: 0, taxability_reason: 'reverse_charge', taxable_amount: 14900 }],
    })
    const rate = await stripe.taxRates.retrieve(String(invoice.total_taxes?.[0]?.tax_rate_details?.tax_rate))
    expect(rate).toMatchObject({ object: 'tax_rate', country: 'DE', percentage: 0, inclusive: false })
    const pdf = await (await fetch(String(invoice.invoice_pdf))).text()
    expect(pdf).toContain('(Acme GmbH)')
    expect(pdf).toContain('(Tax ID \\(eu_vat\\): DE123456789)')
    expect(pdf).toContain('(Reverse charge \\(DE\\): $0.00)')
  })

  it('renames an existing customer with customer_update[name]=auto and saves its address with [address]=auto', async () => {
    const customer = await stripe.customers.create({ email: 'old@example.com', name: 'Jane Doe' })
    const created = await session({
      customer: customer.id,
      tax_id_collection: { enabled: true },
      automatic_tax: { enabled: true },
      customer_update: { name: 'auto', address: 'auto' },
    })
    const events = await standIn.pay(created.id, {
      country: 'FR',
      taxId: { type: 'eu_vat', value: 'FR12345678901' },
      businessName: 'Doe SARL',
    })
    expect(types(events).sort()).toEqual([
      'charge.succeeded',
      'checkout.session.completed',
      'customer.tax_id.created',
      'customer.updated',
      'payment_intent.succeeded',
    ])
    const updated = eventOf(events, 'customer.updated')
    expect(updated.data.previous_attributes).toEqual({ name: 'Jane Doe', address: null })
    expect(await stripe.customers.retrieve(customer.id)).toMatchObject({ name: 'Doe SARL', address: { country: 'FR' } })
    const expanded = await stripe.customers.retrieve(customer.id, { expand: ['tax_ids'] })
    expect((expanded as Stripe.Customer).tax_ids?.data.map((taxId) => taxId.value)).toEqual(['FR12345678901'])

    // The saved tax ID keeps the customer a business buyer: the next checkout is reverse charged too.
    const next = await session({ customer: customer.id, automatic_tax: { enabled: true } })
    expect(next).toMatchObject({
      automatic_tax: { status: 'complete' },
      amount_total: 14900,
      total_details: { amount_tax: 0 },
    })
  })

  it('refuses a tax ID the session does not collect, a malformed one, and one without a business name', async () => {
    const plain = await session()
    await expect(standIn.pay(plain.id, { taxId: { type: 'eu_vat', value: 'DE123456789' } })).rejects.toMatchObject({
      status: 400,
      message: `Checkout session ${plain.id} does not collect tax IDs or business names (tax_id_collection[enabled] is not true).`,
    })
    const collecting = await session({ tax_id_collection: { enabled: true } })
    await expect(
      standIn.pay(collecting.id, { taxId: { type: 'eu_vat', value: '123' }, businessName: 'Acme' }),
    ).rejects.toMatchObject({
      status: 400,
      message: 'Invalid value for eu_vat.',
      body: { error: { code: 'tax_id_invalid' } },
    })
    await expect(standIn.pay(collecting.id, { taxId: { type: 'eu_vat', value: 'DE123456789' } })).rejects.toMatchObject(
      {
        status: 400,
        message: 'A business name is required with a tax ID.',
      },
    )
    const required = await session({ tax_id_collection: { enabled: true, required: 'if_supported' } })
    await expect(standIn.pay(required.id, { country: 'DE' })).rejects.toMatchObject({
      status: 400,
      message: `A tax ID is required to pay checkout session ${required.id} from DE.`,
    })
    // Where tax IDs are not supported they are not required.
    await standIn.pay(required.id, { country: 'US' })
    expect((await stripe.checkout.sessions.retrieve(required.id)).status).toBe('complete')
    for (const id of [plain.id, collecting.id])
      expect((await stripe.checkout.sessions.retrieve(id)).status).toBe('open')
  })
})

describe('post-payment invoices', () => {
  it('makes no invoice without invoice_creation', async () => {
    const invoices = standIn.state.invoices.size
    const created = await session({ customer_creation: 'always', automatic_tax: { enabled: true } })
    const events = await standIn.pay(created.id)
    expect(types(events).filter((type) => type.startsWith('invoice.'))).toEqual([])
    expect((await stripe.checkout.sessions.retrieve(created.id)).invoice).toBeNull()
    expect(standIn.state.invoices.size).toBe(invoices)
  })

  it('makes a paid invoice for the payment, served by GET /v1/invoices/:id, with its page and PDF', async () => {
    const created = await invoicedSession({ customer_creation: 'always', automatic_tax: { enabled: true } })
    const events = await standIn.pay(created.id, { email: 'inv@example.com', country: 'DE' })
    const { completed, paymentIntent, charge } = await paid(created.id)
    const customer = (await stripe.customers.retrieve(idIn(completed.customer))) as Stripe.Customer
    expect(completed.invoice).toMatch(/^in_/)
    expect(objectOf<Stripe.Checkout.Session>(events, 'checkout.session.completed').invoice).toBe(completed.invoice)
    expect(charge.amount).toBe(17731)

    const invoice = await stripe.invoices.retrieve(idIn(completed.invoice))
    const number = `${customer.invoice_prefix}-0001`
    expect(customer.invoice_prefix).toMatch(/^[0-9A-F]{8}$/)
    expect(invoice).toMatchObject({
      id: completed.invoice,
      object: 'invoice',
      status: 'paid',
      number,
      billing_reason: 'manual',
      collection_method: 'charge_automatically',
      customer: customer.id,
      customer_email: 'inv@example.com',
      customer_name: null,
      customer_tax_ids: [],
      currency: 'usd',
      subtotal: 14900,
      total_excluding_tax: 14900,
      total: 17731,
      amount_due: 17731,
      amount_paid: 17731,
      amount_remaining: 0,
      total_taxes: [
        {
          amount: 2831,
          tax_behavior: 'exclusive',
          taxability_reason: 'standard_rated',
          taxable_amount: 14900,
          type: 'tax_rate_details',
        },
      ],
      metadata: { plan: 'standard', license: 'lic_42' },
      description: 'Standard license, lifetime updates',
      footer: 'Thank you for your purchase.',
      hosted_invoice_url: `${standIn.url}/invoices/${idIn(completed.invoice)}`,
      invoice_pdf: `${standIn.url}/invoices/${idIn(completed.invoice)}/pdf`,
      parent: null,
      livemode: false,
    })
    // The fields API version 2026-10-28.endive moved are still filled for older readers.
    expect(invoice).toMatchObject({
      paid: true,
      payment_intent: paymentIntent.id,
      charge: charge.id,
      subscription: null,
      tax: 2831,
    })
    expect(invoice.status_transitions.paid_at).toBeGreaterThan(Date.now() / 1000 - 60)
    expect(invoice.status_transitions.finalized_at).toBeLessThanOrEqual(Number(invoice.status_transitions.paid_at))
    expect(invoice.lines.data).toHaveLength(1)
    expect(invoice.lines.data[0]).toMatchObject({
      object: 'line_item',
      amount: 14900,
      currency: 'usd',
      description: 'Standard (lifetime)',
      quantity: 1,
      invoice: invoice.id,
      parent: { type: 'invoice_item_details', invoice_item_details: { subscription: null, proration: false } },
      pricing: { type: 'price_details', price_details: { price: LIFETIME } },
      taxes: [{ amount: 2831, taxable_amount: 14900, taxability_reason: 'standard_rated' }],
    })
    const rate = await stripe.taxRates.retrieve(String(invoice.total_taxes?.[0]?.tax_rate_details?.tax_rate))
    expect(rate).toMatchObject({ country: 'DE', percentage: 19, display_name: 'VAT', tax_type: 'vat' })

    const expanded = await stripe.checkout.sessions.retrieve(created.id, { expand: ['invoice'] })
    expect(expanded.invoice).toMatchObject({ object: 'invoice', id: invoice.id, number })

    const page = await fetch(String(invoice.hosted_invoice_url))
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toMatch(/^text\/html/)
    const body = await page.text()
    expect(body).toContain(`Invoice ${number}`)
    expect(body).toContain('<td>VAT 19% (DE)</td><td>$28.31</td>')
    expect(body).toContain('<td>Total</td><td>$177.31</td>')
    expect(body).toContain('Standard license, lifetime updates')
    expect(body).toContain(`href="${invoice.invoice_pdf}"`)

    const pdfResponse = await fetch(String(invoice.invoice_pdf))
    expect(pdfResponse.status).toBe(200)
    expect(pdfResponse.headers.get('content-type')).toBe('application/pdf')
    expect(pdfResponse.headers.get('content-disposition')).toBe(`inline; filename="Invoice-${number}.pdf"`)
    const pdf = Buffer.from(await pdfResponse.arrayBuffer()).toString('latin1')
    expect(pdf.startsWith('%PDF-')).toBe(true)
    expectWellFormedPdf(pdf)
    expect(pdf).toContain(`(Invoice ${number})`)
    expect(pdf).toContain('(Standard \\(lifetime\\) \\(qty 1\\): $149.00)')
    expect(pdf).toContain('(VAT 19% \\(DE\\): $28.31)')
    expect(pdf).toContain('(Total: $177.31)')
    expect(pdf).toContain('(inv@example.com)')

    // The same customer's next invoice is numbered on.
    const again = await invoicedSession({ customer: customer.id })
    await standIn.pay(again.id)
    const second = await stripe.invoices.retrieve(idIn((await stripe.checkout.sessions.retrieve(again.id)).invoice))
    expect(second).toMatchObject({ number: `${customer.invoice_prefix}-0002`, total: 14900, total_taxes: [] })

    await expect(stripe.invoices.retrieve('in_missing')).rejects.toMatchObject({
      statusCode: 404,
      code: 'resource_missing',
    })
    expect((await fetch(`${standIn.url}/invoices/in_missing/pdf`)).status).toBe(404)
  })

  it('numbers a guest’s invoices account-wide, without a customer', async () => {
    const first = await invoicedSession({ customer_email: 'guest@example.com' })
    const second = await invoicedSession({ customer_email: 'guest@example.com' })
    await standIn.pay(first.id)
    await standIn.pay(second.id)
    const invoiceOf = async (id: string) =>
      stripe.invoices.retrieve(idIn((await stripe.checkout.sessions.retrieve(id)).invoice))
    const one = await invoiceOf(first.id)
    const two = await invoiceOf(second.id)
    expect(one).toMatchObject({ customer: null, customer_email: 'guest@example.com', total: 14900, status: 'paid' })
    const [prefix, sequence] = String(one.number).split('-')
    expect(prefix).toMatch(/^[0-9A-F]{8}$/)
    expect(two.number).toBe(`${prefix}-${String(Number(sequence) + 1).padStart(4, '0')}`)
  })

  it('delivers the invoice events after the payment events, signed, each with the invoice as it was then', async () => {
    const created = await invoicedSession({ customer_creation: 'always' })
    const events = await standIn.pay(created.id, { email: 'hooks@example.com' })
    await standIn.settled()
    expect(receiver.rejected).toEqual([])
    expect(receiver.received.map(({ event }) => event.id).sort()).toEqual(events.map((event) => event.id).sort())
    const delivered = receiver.received.map(({ event }) => event)
    expect(types(delivered).sort()).toEqual([
      'charge.succeeded',
      'checkout.session.completed',
      'customer.created',
      'invoice.created',
      'invoice.finalized',
      'invoice.paid',
      'invoice.payment_succeeded',
      'payment_intent.succeeded',
    ])
    // Delivery shuffles them (Stripe guarantees no order); the invoice went through its states in this order.
    const log = standIn.events().map((record) => record.event)
    const made = types(log.filter((event) => events.some((sent) => sent.id === event.id)))
    expect(made.filter((type) => type.startsWith('invoice.'))).toEqual([
      'invoice.created',
      'invoice.finalized',
      'invoice.paid',
      'invoice.payment_succeeded',
    ])
    expect(made.indexOf('charge.succeeded')).toBeLessThan(made.indexOf('invoice.created'))
    expect(objectOf<Stripe.Checkout.Session>(delivered, 'checkout.session.completed').invoice).toMatch(/^in_/)
    const draft = objectOf<Stripe.Invoice>(delivered, 'invoice.created')
    expect(draft).toMatchObject({
      status: 'draft',
      number: null,
      hosted_invoice_url: null,
      invoice_pdf: null,
      amount_paid: 0,
    })
    const finalized = objectOf<Stripe.Invoice>(delivered, 'invoice.finalized')
    expect(finalized).toMatchObject({ status: 'open', amount_paid: 0, amount_remaining: 14900 })
    expect(finalized.number).toMatch(/^[0-9A-F]{8}-0001$/)
    for (const type of ['invoice.paid', 'invoice.payment_succeeded']) {
      expect(objectOf<Stripe.Invoice>(delivered, type)).toMatchObject({
        id: draft.id,
        status: 'paid',
        number: finalized.number,
        amount_paid: 14900,
        customer_email: 'hooks@example.com',
        metadata: { plan: 'standard', license: 'lic_42' },
      })
    }
  })

  it('traces the payment intent to the invoice through GET /v1/invoice_payments', async () => {
    const created = await invoicedSession({ automatic_tax: { enabled: true } })
    await standIn.pay(created.id, { country: 'FR' })
    const { completed, paymentIntent } = await paid(created.id)
    const payments = await stripe.invoicePayments.list({
      payment: { type: 'payment_intent', payment_intent: paymentIntent.id },
    })
    expect(payments.data).toHaveLength(1)
    expect(payments.data[0]).toMatchObject({
      object: 'invoice_payment',
      invoice: completed.invoice,
      amount_paid: 17880,
      amount_requested: 17880,
      currency: 'usd',
      status: 'paid',
      is_default: true,
      payment: { type: 'payment_intent', payment_intent: paymentIntent.id },
    })
    const byInvoice = await stripe.invoicePayments.list({ invoice: idIn(completed.invoice) })
    expect(byInvoice.data.map((payment) => payment.id)).toEqual([payments.data[0]?.id])
    // API version 2026-10-28.endive's way from the invoice to its payment intent.
    const expanded = await stripe.invoices.retrieve(idIn(completed.invoice), { expand: ['payments'] })
    expect(expanded.payments?.data).toEqual([
      expect.objectContaining({
        id: payments.data[0]?.id,
        payment: { type: 'payment_intent', payment_intent: paymentIntent.id },
      }),
    ])

    // A payment without invoice_creation has no invoice payment.
    const plain = await session()
    await standIn.pay(plain.id)
    const plainIntent = idIn((await stripe.checkout.sessions.retrieve(plain.id)).payment_intent)
    expect(
      (await stripe.invoicePayments.list({ payment: { type: 'payment_intent', payment_intent: plainIntent } })).data,
    ).toEqual([])
  })

  it('leaves the invoice as it was when the charge is partly refunded', async () => {
    const created = await invoicedSession({ automatic_tax: { enabled: true } })
    await standIn.pay(created.id, { country: 'DE' })
    const { completed, charge } = await paid(created.id)
    const before = await stripe.invoices.retrieve(idIn(completed.invoice))
    const refund = await stripe.refunds.create({ charge: charge.id, amount: 5000 })
    expect(refund).toMatchObject({ amount: 5000, status: 'succeeded' })
    expect(await stripe.charges.retrieve(charge.id)).toMatchObject({
      amount: 17731,
      amount_refunded: 5000,
      refunded: false,
    })
    const after = await stripe.invoices.retrieve(idIn(completed.invoice))
    expect(after).toMatchObject({
      status: 'paid',
      total: 17731,
      amount_due: 17731,
      amount_paid: 17731,
      amount_remaining: 0,
      post_payment_credit_notes_amount: 0,
      total_taxes: [{ amount: 2831 }],
    })
    expect(after).toEqual(before)
  })

  it('invoices a delayed payment once it succeeded, and a failed one never', async () => {
    const succeeding = await invoicedSession()
    const events = await standIn.pay(succeeding.id, { outcome: 'async_succeeded' })
    const completedEvent = objectOf<Stripe.Checkout.Session>(events, 'checkout.session.completed')
    expect(completedEvent).toMatchObject({ payment_status: 'unpaid', invoice: null })
    const succeeded = objectOf<Stripe.Checkout.Session>(events, 'checkout.session.async_payment_succeeded')
    expect(succeeded.invoice).toMatch(/^in_/)
    expect(objectOf<Stripe.Invoice>(events, 'invoice.paid')).toMatchObject({
      id: succeeded.invoice,
      amount_paid: 14900,
    })

    const failing = await invoicedSession()
    const failed = await standIn.pay(failing.id, { outcome: 'async_failed' })
    expect(types(failed).filter((type) => type.startsWith('invoice.'))).toEqual([])
    expect((await stripe.checkout.sessions.retrieve(failing.id)).invoice).toBeNull()
  })

  it('invoices a fully discounted checkout at zero, paid without a payment', async () => {
    const coupon = await stripe.coupons.create({ percent_off: 100 })
    const created = await invoicedSession({ discounts: [{ coupon: coupon.id }], customer_email: 'free@example.com' })
    const events = await standIn.pay(created.id)
    expect(types(events).sort()).toEqual([
      'checkout.session.completed',
      'invoice.created',
      'invoice.finalized',
      'invoice.paid',
      'invoice.payment_succeeded',
    ])
    const invoice = await stripe.invoices.retrieve(idIn((await stripe.checkout.sessions.retrieve(created.id)).invoice))
    expect(invoice).toMatchObject({
      status: 'paid',
      subtotal: 14900,
      total: 0,
      amount_paid: 0,
      total_discount_amounts: [{ amount: 14900 }],
      payment_intent: null,
    })
  })
})

describe('the hosted checkout page', () => {
  it('asks for the country, business name and tax ID the session collects, and shows the tax', async () => {
    const created = await invoicedSession({
      automatic_tax: { enabled: true },
      tax_id_collection: { enabled: true },
      customer_creation: 'always',
    })
    const form = await (await fetch(String(created.url))).text()
    expect(form).toContain('name="country" value="DE"')
    expect(form).toContain('name="business_name"')
    expect(form).toContain('name="tax_id"')
    expect(form).toContain('<option value="eu_vat">eu_vat</option>')
    expect(form).toContain('Tax (19% for DE; calculated for the country you enter): $28.31')
    expect(form).toContain('Total: $177.31')

    const plain = await (await fetch(String((await session()).url))).text()
    expect(plain).not.toContain('name="country"')
    expect(plain).not.toContain('name="tax_id"')
    expect(plain).not.toContain('Tax')

    const refused = await fetch(`${standIn.url}/checkout/${created.id}/pay`, {
      method: 'POST',
      body: new URLSearchParams({ email: 'page@example.com', country: 'FR', tax_id_type: 'eu_vat', tax_id: 'FR1' }),
      redirect: 'manual',
    })
    expect(refused.status).toBe(400)
    expect(await refused.text()).toContain('Invalid value for eu_vat.')

    const answer = await fetch(`${standIn.url}/checkout/${created.id}/pay`, {
      method: 'POST',
      body: new URLSearchParams({
        email: 'page@example.com',
        outcome: 'succeeded',
        country: 'fr',
        business_name: 'Page SAS',
        tax_id_type: 'eu_vat',
        tax_id: 'FR12345678901',
      }),
      redirect: 'manual',
    })
    expect(answer.status).toBe(303)
    expect(answer.headers.get('location')).toBe(`https://app.example/thanks?session_id=${created.id}`)
    const completed = await stripe.checkout.sessions.retrieve(created.id)
    expect(completed).toMatchObject({
      customer_details: {
        email: 'page@example.com',
        business_name: 'Page SAS',
        address: { country: 'FR' },
        tax_ids: [{ type: 'eu_vat', value: 'FR12345678901' }],
      },
      total_details: { amount_tax: 0 },
    })
    const invoice = await stripe.invoices.retrieve(idIn(completed.invoice))
    expect(invoice).toMatchObject({
      customer_name: 'Page SAS',
      customer_tax_ids: [{ type: 'eu_vat', value: 'FR12345678901' }],
    })
    const page = await (await fetch(String(invoice.hosted_invoice_url))).text()
    expect(page).toContain('Page SAS')
    expect(page).toContain('Tax ID (eu_vat): FR12345678901')
    expect(page).toContain('<td>Reverse charge (FR)</td><td>$0.00</td>')
  })

  it('still answers the first hosted invoice URLs under /invoice/', async () => {
    const created = await invoicedSession()
    await standIn.pay(created.id)
    const id = idIn((await stripe.checkout.sessions.retrieve(created.id)).invoice)
    expect((await fetch(`${standIn.url}/invoice/${id}`)).status).toBe(200)
    const pdf = await fetch(`${standIn.url}/invoice/${id}/pdf`)
    expect(pdf.status).toBe(200)
    expect(pdf.headers.get('content-type')).toBe('application/pdf')
  })
})

import http from 'node:http'
import type { AddressInfo } from 'node:net'

import Stripe from 'stripe'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'

import { startProcessorStandIn, type ProcessorStandIn } from '../src/processor'
import { idIn } from './sdk'

const SECRET_KEY = 'sk_test_standin_0123456789'
const WEBHOOK_SECRET = 'whsec_standin_0123456789'
const LIFETIME = 'price_standin_standard_lifetime'
const MONTHLY = 'price_standin_pro_monthly'
const SUCCESS_URL = 'https://app.example/thanks?session_id={CHECKOUT_SESSION_ID}'
const CANCEL_URL = 'https://app.example/pricing'

/** mulberry32: a seed always gives the same sequence, so event orders are reproducible. */
const seeded = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

type Received = { event: Stripe.Event; signature: string }

/** The webhook endpoint of the service under test, reduced to what the tests look at: verified events. */
const startReceiver = async (verifier: Stripe) => {
  const received: Received[] = []
  const rejected: string[] = []
  const answers: number[] = []
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const signature = String(req.headers['stripe-signature'])
      try {
        const event = verifier.webhooks.constructEvent(Buffer.concat(chunks), signature, WEBHOOK_SECRET)
        received.push({ event, signature })
      } catch (error) {
        rejected.push(error instanceof Error ? error.message : String(error))
      }
      res.statusCode = answers.shift() ?? 200
      res.end('{}')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhook`,
    received,
    rejected,
    /** The statuses the next deliveries get, then 200 again. */
    answerNext: (...statuses: number[]) => answers.push(...statuses),
    clear: () => {
      received.length = 0
      rejected.length = 0
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

const sdk = (standIn: ProcessorStandIn, key = SECRET_KEY) =>
  new Stripe(key, {
    host: '127.0.0.1',
    port: standIn.port,
    protocol: 'http',
    apiVersion: '2026-10-28.endive',
    maxNetworkRetries: 0,
  })

const types = (events: Stripe.Event[]) => events.map((event) => event.type)
const eventOf = (events: Stripe.Event[], type: string): Stripe.Event => {
  const found = events.find((event) => event.type === type)
  if (!found) throw new Error(`no ${type} among ${types(events).join(', ')}`)
  return found
}
const objectOf = <T>(events: Stripe.Event[], type: string): T => eventOf(events, type).data.object as T

let standIn: ProcessorStandIn
let stripe: Stripe
let receiver: Awaited<ReturnType<typeof startReceiver>>

beforeAll(async () => {
  receiver = await startReceiver(new Stripe(SECRET_KEY))
  standIn = await startProcessorStandIn({
    secretKey: SECRET_KEY,
    webhookSecret: WEBHOOK_SECRET,
    webhookUrl: receiver.url,
    random: seeded(7),
  })
  stripe = sdk(standIn)
})

afterAll(async () => {
  await standIn.close()
  await receiver.close()
})

beforeEach(() => {
  standIn.clearFailures()
  receiver.clear()
})

const lifetimeSession = (fields: Partial<Stripe.Checkout.SessionCreateParams> = {}) =>
  stripe.checkout.sessions.create({
    mode: 'payment',
    line_items: [{ price: LIFETIME, quantity: 1 }],
    success_url: SUCCESS_URL,
    cancel_url: CANCEL_URL,
    ...fields,
  })

const monthlySession = (fields: Partial<Stripe.Checkout.SessionCreateParams> = {}) =>
  stripe.checkout.sessions.create({
    mode: 'subscription',
    line_items: [{ price: MONTHLY, quantity: 1 }],
    success_url: SUCCESS_URL,
    cancel_url: CANCEL_URL,
    ...fields,
  })

const paidSubscription = async () => {
  const session = await monthlySession({
    customer_email: 'sub@example.com',
    subscription_data: { metadata: { userId: '7' } },
  })
  const events = await standIn.pay(session.id)
  return { session, events, subscriptionId: objectOf<Stripe.Subscription>(events, 'customer.subscription.created').id }
}

const paidCharge = async () => {
  const session = await lifetimeSession({ customer_email: 'buyer@example.com' })
  const events = await standIn.pay(session.id)
  return objectOf<Stripe.Charge>(events, 'charge.succeeded')
}

describe('prices', () => {
  it('retrieves a configured price and answers an unknown one with Stripe 404 shape', async () => {
    const price = await stripe.prices.retrieve(LIFETIME)
    expect(price).toMatchObject({
      object: 'price',
      id: LIFETIME,
      unit_amount: 14900,
      currency: 'usd',
      type: 'one_time',
    })
    expect(price.product).toMatch(/^prod_/)

    const missing = stripe.prices.retrieve('price_nope')
    await expect(missing).rejects.toBeInstanceOf(Stripe.errors.StripeInvalidRequestError)
    await expect(missing).rejects.toMatchObject({ code: 'resource_missing', statusCode: 404, param: 'id' })

    const raw = await fetch(`${standIn.url}/v1/prices/price_nope`, {
      headers: { Authorization: `Bearer ${SECRET_KEY}` },
    })
    expect(raw.status).toBe(404)
    expect(await raw.json()).toMatchObject({
      error: {
        type: 'invalid_request_error',
        code: 'resource_missing',
        param: 'id',
        message: "No such price: 'price_nope'",
      },
    })
  })

  it('lists the prices of the key mode and creates new ones', async () => {
    const listed = await stripe.prices.list({ limit: 100 })
    expect(listed.data.map((price) => price.id).sort()).toEqual([
      'price_standin_pro_monthly',
      'price_standin_pro_yearly',
      'price_standin_standard_lifetime',
      'price_standin_standard_renewal',
      'price_standin_ultimate_lifetime',
    ])
    const created = await stripe.prices.create({
      unit_amount: 500,
      currency: 'usd',
      recurring: { interval: 'month' },
      product_data: { name: 'Add-on' },
    })
    expect(created).toMatchObject({
      unit_amount: 500,
      type: 'recurring',
      recurring: { interval: 'month' },
      livemode: false,
    })
    expect((await stripe.prices.retrieve(created.id)).id).toBe(created.id)
  })
})

describe('checkout sessions', () => {
  it('creates a payment-mode session with the hosted URL, amount and metadata', async () => {
    const session = await lifetimeSession({
      customer_email: 'buyer@example.com',
      client_reference_id: 'user_42',
      metadata: { userId: '42', plan: 'standard' },
      allow_promotion_codes: true,
    })
    expect(session.id).toMatch(/^cs_test_[A-Za-z0-9]{24}$/)
    expect(session).toMatchObject({
      object: 'checkout.session',
      mode: 'payment',
      status: 'open',
      payment_status: 'unpaid',
      url: `${standIn.url}/checkout/${session.id}`,
      amount_total: 14900,
      currency: 'usd',
      livemode: false,
      customer_email: 'buyer@example.com',
      client_reference_id: 'user_42',
      metadata: { userId: '42', plan: 'standard' },
      allow_promotion_codes: true,
      success_url: SUCCESS_URL,
    })

    const expanded = await stripe.checkout.sessions.retrieve(session.id, { expand: ['line_items'] })
    expect(expanded.line_items?.data[0]).toMatchObject({
      object: 'item',
      quantity: 1,
      amount_total: 14900,
      price: { id: LIFETIME },
    })
    const lines = await stripe.checkout.sessions.listLineItems(session.id)
    expect(lines.data.map((line) => line.price?.id)).toEqual([LIFETIME])
  })

  it('creates a subscription-mode session for a recurring price', async () => {
    const session = await monthlySession()
    expect(session).toMatchObject({ mode: 'subscription', status: 'open', amount_total: 2900, subscription: null })
  })

  it('rejects mode and price mismatches, unknown prices and live prices with a test key like Stripe', async () => {
    const recurringInPayment = lifetimeSession({ line_items: [{ price: MONTHLY, quantity: 1 }] })
    await expect(recurringInPayment).rejects.toBeInstanceOf(Stripe.errors.StripeInvalidRequestError)
    await expect(recurringInPayment).rejects.toMatchObject({
      statusCode: 400,
      message: expect.stringContaining('recurring'),
    })

    const oneTimeInSubscription = monthlySession({ line_items: [{ price: LIFETIME, quantity: 1 }] })
    await expect(oneTimeInSubscription).rejects.toMatchObject({ type: 'StripeInvalidRequestError', statusCode: 400 })

    const unknown = lifetimeSession({ line_items: [{ price: 'price_missing', quantity: 1 }] })
    await expect(unknown).rejects.toMatchObject({
      code: 'resource_missing',
      param: 'line_items[0][price]',
      statusCode: 400,
    })

    const liveOnly = lifetimeSession({ line_items: [{ price: 'price_standin_live_only', quantity: 1 }] })
    await expect(liveOnly).rejects.toMatchObject({
      code: 'resource_missing',
      param: 'line_items[0][price]',
      message: expect.stringContaining('a similar object exists in live mode'),
    })
  })
})

describe('transport', () => {
  it('replays a response for a repeated idempotency key and refuses the key with other parameters', async () => {
    const before = standIn.state.customers.size
    const first = await stripe.customers.create({ email: 'same@example.com' }, { idempotencyKey: 'key-1' })
    const again = await stripe.customers.create({ email: 'same@example.com' }, { idempotencyKey: 'key-1' })
    expect(again.id).toBe(first.id)
    expect(again.lastResponse.headers['idempotent-replayed']).toBe('true')
    expect(standIn.state.customers.size).toBe(before + 1)
    expect(standIn.state.requests.filter((request) => request.idempotencyKey === 'key-1')).toHaveLength(2)

    const other = stripe.customers.create({ email: 'other@example.com' }, { idempotencyKey: 'key-1' })
    await expect(other).rejects.toBeInstanceOf(Stripe.errors.StripeIdempotencyError)
    await expect(other).rejects.toMatchObject({ message: expect.stringContaining('same parameters') })
  })

  it('refuses a wrong API key', async () => {
    const wrong = sdk(standIn, 'sk_test_wrong_key_000000').prices.retrieve(LIFETIME)
    await expect(wrong).rejects.toBeInstanceOf(Stripe.errors.StripeAuthenticationError)
    await expect(wrong).rejects.toMatchObject({ statusCode: 401 })
  })

  it('injects 500s that create nothing, 429s and hangs', async () => {
    const sessions = standIn.state.sessions.size
    standIn.failNext({ method: 'POST', path: '/v1/checkout/sessions', status: 500 })
    await expect(lifetimeSession()).rejects.toBeInstanceOf(Stripe.errors.StripeAPIError)
    expect(standIn.state.sessions.size).toBe(sessions)
    // The rule was used up: the retry goes through.
    await expect(lifetimeSession()).resolves.toMatchObject({ status: 'open' })

    standIn.failNext({ path: /^\/v1\/prices\//, status: 429 })
    await expect(stripe.prices.retrieve(LIFETIME)).rejects.toBeInstanceOf(Stripe.errors.StripeRateLimitError)

    standIn.failNext({ path: /^\/v1\/prices\//, delayMs: 2_000 })
    const slow = stripe.prices.retrieve(LIFETIME, {}, { timeout: 200 })
    await expect(slow).rejects.toBeInstanceOf(Stripe.errors.StripeConnectionError)
  })
})

describe('paying a checkout session', () => {
  it('delivers the lifetime purchase events, signed, with the metadata on the payment intent', async () => {
    const session = await lifetimeSession({
      customer_email: 'buyer@example.com',
      metadata: { userId: '42' },
      payment_intent_data: { metadata: { userId: '42', plan: 'standard' } },
    })
    const sent = await standIn.pay(session.id, { email: 'buyer@example.com' })

    expect(types(sent).sort()).toEqual(['charge.succeeded', 'checkout.session.completed', 'payment_intent.succeeded'])
    expect(receiver.rejected).toEqual([])
    expect(receiver.received.map(({ event }) => event.id)).toEqual(sent.map((event) => event.id))
    for (const { event } of receiver.received) {
      expect(event).toMatchObject({
        object: 'event',
        api_version: '2026-10-28.endive',
        livemode: false,
        pending_webhooks: 1,
      })
      expect(event.id).toMatch(/^evt_/)
    }

    const completed = objectOf<Stripe.Checkout.Session>(sent, 'checkout.session.completed')
    expect(completed).toMatchObject({
      status: 'complete',
      payment_status: 'paid',
      metadata: { userId: '42' },
      customer_details: { email: 'buyer@example.com' },
    })
    const paymentIntent = await stripe.paymentIntents.retrieve(idIn(completed.payment_intent))
    expect(paymentIntent).toMatchObject({
      status: 'succeeded',
      amount: 14900,
      metadata: { userId: '42', plan: 'standard' },
    })
    const charge = await stripe.charges.retrieve(idIn(paymentIntent.latest_charge))
    expect(charge).toMatchObject({ paid: true, status: 'succeeded', amount: 14900, payment_intent: paymentIntent.id })
    expect(charge.billing_details.email).toBe('buyer@example.com')
    expect(charge.receipt_url).toBe(`${standIn.url}/receipt/${charge.id}`)
  })

  it('creates a customer, subscription and paid invoice for a subscription', async () => {
    const { session, events, subscriptionId } = await paidSubscription()
    expect(types(events).sort()).toEqual([
      'charge.succeeded',
      'checkout.session.completed',
      'customer.created',
      'customer.subscription.created',
      'invoice.created',
      'invoice.finalized',
      'invoice.paid',
      'invoice.payment_succeeded',
      'payment_intent.succeeded',
    ])
    expect(receiver.received).toHaveLength(events.length)
    // Each event carries the object as it was when the event happened.
    expect(objectOf<Stripe.Invoice>(events, 'invoice.created').status).toBe('draft')
    expect(objectOf<Stripe.Invoice>(events, 'invoice.paid').status).toBe('paid')

    const completed = await stripe.checkout.sessions.retrieve(session.id)
    expect(completed).toMatchObject({ status: 'complete', payment_status: 'paid', subscription: subscriptionId })
    const subscription = await stripe.subscriptions.retrieve(subscriptionId)
    expect(subscription).toMatchObject({
      status: 'active',
      cancel_at_period_end: false,
      customer: completed.customer,
      metadata: { userId: '7' },
    })
    const item = subscription.items.data[0]
    expect(item?.price.id).toBe(MONTHLY)
    expect(item?.current_period_end).toBeGreaterThan(Date.now() / 1000 + 27 * 24 * 3600)

    const invoice = await stripe.invoices.retrieve(idIn(subscription.latest_invoice))
    expect(invoice).toMatchObject({
      status: 'paid',
      amount_paid: 2900,
      customer_email: 'sub@example.com',
      billing_reason: 'subscription_create',
      parent: { type: 'subscription_details', subscription_details: { subscription: subscriptionId } },
    })
    expect(invoice).toMatchObject({ subscription: subscriptionId, payment_intent: expect.stringMatching(/^pi_/) })
  })

  it('delivers the events of one action in an order that depends on the random source', async () => {
    const orders: string[][] = []
    for (const seed of [1, 2]) {
      const quiet = await startProcessorStandIn({
        secretKey: SECRET_KEY,
        webhookSecret: WEBHOOK_SECRET,
        webhookUrl: null,
        random: seeded(seed),
      })
      try {
        const session = await sdk(quiet).checkout.sessions.create({
          mode: 'subscription',
          line_items: [{ price: MONTHLY, quantity: 1 }],
          success_url: SUCCESS_URL,
        })
        orders.push(types(await quiet.pay(session.id)))
      } finally {
        await quiet.close()
      }
    }
    const [first, second] = orders
    expect(first?.length).toBeGreaterThanOrEqual(8)
    expect([...(first ?? [])].sort()).toEqual([...(second ?? [])].sort())
    expect(first).not.toEqual(second)
  })

  it('completes delayed payments unpaid first and reports their outcome afterwards', async () => {
    const later = await lifetimeSession()
    const succeeded = await standIn.pay(later.id, { outcome: 'async_succeeded' })
    expect(succeeded[0]?.type).toBe('checkout.session.completed')
    expect(objectOf<Stripe.Checkout.Session>(succeeded, 'checkout.session.completed').payment_status).toBe('unpaid')
    expect(
      objectOf<Stripe.Checkout.Session>(succeeded, 'checkout.session.async_payment_succeeded').payment_status,
    ).toBe('paid')
    expect(types(succeeded)).toContain('charge.succeeded')

    const failing = await lifetimeSession()
    const failed = await standIn.pay(failing.id, { outcome: 'async_failed' })
    expect(types(failed).sort()).toEqual([
      'checkout.session.async_payment_failed',
      'checkout.session.completed',
      'payment_intent.payment_failed',
    ])
    expect(objectOf<Stripe.Checkout.Session>(failed, 'checkout.session.async_payment_failed').payment_status).toBe(
      'unpaid',
    )
  })

  it('leaves the session open when the card is declined', async () => {
    const session = await lifetimeSession()
    const sent = await standIn.pay(session.id, { outcome: 'declined' })
    expect(types(sent)).toEqual(['payment_intent.payment_failed'])
    expect(objectOf<Stripe.PaymentIntent>(sent, 'payment_intent.payment_failed').last_payment_error?.code).toBe(
      'card_declined',
    )
    expect((await stripe.checkout.sessions.retrieve(session.id)).status).toBe('open')
  })
})

describe('processor-side actions', () => {
  it('refunds a charge in full, and partly through the API', async () => {
    const charge = await paidCharge()
    receiver.clear()
    const sent = await standIn.refund(charge.id)
    expect(types(sent).sort()).toEqual(['charge.refunded', 'refund.created'])
    expect(objectOf<Stripe.Charge>(sent, 'charge.refunded')).toMatchObject({
      refunded: true,
      amount_refunded: charge.amount,
    })
    await expect(standIn.refund(charge.id)).rejects.toMatchObject({
      message: expect.stringContaining('already been refunded'),
    })

    const other = await paidCharge()
    receiver.clear()
    const refund = await stripe.refunds.create({ payment_intent: idIn(other.payment_intent), amount: 1000 })
    expect(refund).toMatchObject({ object: 'refund', amount: 1000, charge: other.id, status: 'succeeded' })
    await standIn.settled()
    const refunded = objectOf<Stripe.Charge>(
      receiver.received.map(({ event }) => event),
      'charge.refunded',
    )
    expect(refunded).toMatchObject({ refunded: false, amount_refunded: 1000 })
  })

  it('opens disputes and closes them won or lost', async () => {
    for (const outcome of ['won', 'lost'] as const) {
      const charge = await paidCharge()
      const opened = await standIn.openDispute(charge.id)
      const dispute = objectOf<Stripe.Dispute>(opened, 'charge.dispute.created')
      expect(dispute).toMatchObject({ charge: charge.id, status: 'needs_response', amount: charge.amount })
      expect(dispute.id).toMatch(/^dp_/)

      const closed = await standIn.closeDispute(dispute.id, outcome)
      expect(types(closed)).toEqual(['charge.dispute.closed'])
      expect(objectOf<Stripe.Dispute>(closed, 'charge.dispute.closed').status).toBe(outcome)
      expect((await stripe.disputes.retrieve(dispute.id)).status).toBe(outcome)
    }
  })

  it('fails a renewal payment: the invoice payment fails and the subscription goes past due', async () => {
    const { subscriptionId } = await paidSubscription()
    const sent = await standIn.failInvoicePayment(subscriptionId)
    expect(types(sent)).toEqual(expect.arrayContaining(['invoice.payment_failed', 'customer.subscription.updated']))
    const updated = eventOf(sent, 'customer.subscription.updated')
    expect(updated.data.object).toMatchObject({ status: 'past_due' })
    expect(updated.data.previous_attributes).toMatchObject({ status: 'active' })
    expect((await stripe.subscriptions.retrieve(subscriptionId)).status).toBe('past_due')
  })

  it('renews a subscription: paid invoice and a period that moved forward', async () => {
    const { subscriptionId } = await paidSubscription()
    const before = await stripe.subscriptions.retrieve(subscriptionId)
    const sent = await standIn.renewSubscription(subscriptionId)
    expect(types(sent)).toEqual(
      expect.arrayContaining(['invoice.payment_succeeded', 'invoice.paid', 'customer.subscription.updated']),
    )
    expect(objectOf<Stripe.Invoice>(sent, 'invoice.payment_succeeded').billing_reason).toBe('subscription_cycle')
    const after = await stripe.subscriptions.retrieve(subscriptionId)
    expect(after.status).toBe('active')
    expect(after.items.data[0]?.current_period_end).toBeGreaterThan(
      before.items.data[0]?.current_period_end ?? Infinity,
    )
    expect(after.items.data[0]?.current_period_start).toBe(before.items.data[0]?.current_period_end)
  })

  it('reports subscription changes made through the API as webhooks after answering', async () => {
    const { subscriptionId } = await paidSubscription()
    receiver.clear()
    const updated = await stripe.subscriptions.update(subscriptionId, { cancel_at_period_end: true })
    expect(updated.cancel_at_period_end).toBe(true)
    const canceled = await stripe.subscriptions.cancel(subscriptionId)
    expect(canceled.status).toBe('canceled')
    await standIn.settled()
    const received = receiver.received.map(({ event }) => event)
    expect(types(received).sort()).toEqual(['customer.subscription.deleted', 'customer.subscription.updated'])
    expect(eventOf(received, 'customer.subscription.updated').data.previous_attributes).toMatchObject({
      cancel_at_period_end: false,
    })
  })

  it("changes an item's quantity through the API, refusing unknown items, negative quantities and canceled subscriptions", async () => {
    const { subscriptionId } = await paidSubscription()
    const itemId = (await stripe.subscriptions.retrieve(subscriptionId)).items.data[0]!.id
    receiver.clear()
    const updated = await stripe.subscriptions.update(subscriptionId, {
      items: [{ id: itemId, quantity: 4 }],
      proration_behavior: 'none',
    })
    expect(updated.items.data[0]!.quantity).toBe(4)
    await standIn.settled()
    const [event] = receiver.received.map(({ event }) => event)
    expect(event!.type).toBe('customer.subscription.updated')
    expect(
      (event!.data.previous_attributes as { items?: { data: { quantity: number }[] } }).items?.data[0]?.quantity,
    ).toBe(1)

    const refused = async (items: Stripe.SubscriptionUpdateParams.Item[]) =>
      stripe.subscriptions.update(subscriptionId, { items }).catch((error: Stripe.errors.StripeError) => error)
    expect(await refused([{ id: 'si_unknown', quantity: 1 }])).toMatchObject({
      statusCode: 400,
      code: 'resource_missing',
      param: 'items[0][id]',
    })
    expect(await refused([{ id: itemId, quantity: -1 }])).toMatchObject({
      statusCode: 400,
      param: 'items[0][quantity]',
    })
    expect((await stripe.subscriptions.retrieve(subscriptionId)).items.data[0]!.quantity).toBe(4)
    await stripe.subscriptions.cancel(subscriptionId)
    expect(await refused([{ id: itemId, quantity: 2 }])).toMatchObject({ statusCode: 400, param: 'items' })
  })
})

describe('deleting customers', () => {
  const missingCustomer = (id: string, param = 'id', statusCode = 404) => ({
    type: 'StripeInvalidRequestError',
    code: 'resource_missing',
    statusCode,
    param,
    message: `No such customer: '${id}'`,
  })

  it('answers the deleted customer object, then refuses the customer everywhere but its retrieval', async () => {
    const customer = await stripe.customers.create({ email: 'leaving@example.com', name: 'Leaving' })
    await standIn.settled()
    receiver.clear()

    const deleted = await stripe.customers.del(customer.id)
    expect(deleted).toMatchObject({ id: customer.id, object: 'customer', deleted: true })
    expect(standIn.state.customers.has(customer.id)).toBe(false)
    await standIn.settled()
    const received = receiver.received.map(({ event }) => event)
    expect(types(received)).toEqual(['customer.deleted'])
    // The event carries the customer as it was, under the request that deleted it.
    expect(received[0]).toMatchObject({
      data: { object: { id: customer.id, object: 'customer', email: 'leaving@example.com', name: 'Leaving' } },
      request: { id: deleted.lastResponse.requestId },
    })

    // Retrieving it still answers, with the deleted customer object and nothing else.
    expect(await stripe.customers.retrieve(customer.id)).toMatchObject({ id: customer.id, deleted: true })
    const raw = await fetch(`${standIn.url}/v1/customers/${customer.id}`, {
      headers: { Authorization: `Bearer ${SECRET_KEY}` },
    })
    expect(raw.status).toBe(200)
    expect(await raw.json()).toEqual({ id: customer.id, object: 'customer', deleted: true })

    const again = stripe.customers.del(customer.id)
    await expect(again).rejects.toBeInstanceOf(Stripe.errors.StripeInvalidRequestError)
    await expect(again).rejects.toMatchObject(missingCustomer(customer.id))
    const update = stripe.customers.update(customer.id, { name: 'Back' })
    await expect(update).rejects.toBeInstanceOf(Stripe.errors.StripeInvalidRequestError)
    await expect(update).rejects.toMatchObject(missingCustomer(customer.id))
    await expect(lifetimeSession({ customer: customer.id })).rejects.toMatchObject(
      missingCustomer(customer.id, 'customer', 400),
    )
    await expect(stripe.billingPortal.sessions.create({ customer: customer.id })).rejects.toMatchObject(
      missingCustomer(customer.id, 'customer', 400),
    )
    await standIn.settled()
    expect(types(receiver.received.map(({ event }) => event))).toEqual(['customer.deleted'])
  })

  it('cancels the subscriptions not canceled yet at once, as an immediate cancellation does', async () => {
    const { session, subscriptionId: ended } = await paidSubscription()
    const customerId = idIn((await stripe.checkout.sessions.retrieve(session.id)).customer)
    const second = await monthlySession({ customer: customerId })
    const live = objectOf<Stripe.Subscription>(await standIn.pay(second.id), 'customer.subscription.created').id
    const endedBefore = await stripe.subscriptions.cancel(ended)
    await standIn.settled()
    receiver.clear()

    const deleted = await stripe.customers.del(customerId)
    await standIn.settled()
    const received = receiver.received.map(({ event }) => event)
    expect(types(received).sort()).toEqual(['customer.deleted', 'customer.subscription.deleted'])
    expect(eventOf(received, 'customer.subscription.deleted')).toMatchObject({
      data: { object: { id: live, status: 'canceled' } },
      request: { id: deleted.lastResponse.requestId },
    })
    expect(objectOf<Stripe.Customer>(received, 'customer.deleted')).toMatchObject({
      id: customerId,
      object: 'customer',
      email: 'sub@example.com',
    })

    const canceled = await stripe.subscriptions.retrieve(live, { expand: ['customer'] })
    expect(canceled).toMatchObject({
      status: 'canceled',
      canceled_at: expect.any(Number),
      ended_at: expect.any(Number),
      cancellation_details: { reason: 'cancellation_requested' },
      customer: { id: customerId, object: 'customer', deleted: true },
    })
    // The one canceled earlier is left as it was.
    expect(await stripe.subscriptions.retrieve(ended)).toMatchObject({
      status: 'canceled',
      canceled_at: endedBefore.canceled_at,
      ended_at: endedBefore.ended_at,
    })
  })

  it('answers an unknown customer with Stripe 404 shape and takes injected failures', async () => {
    const unknown = stripe.customers.del('cus_nope')
    await expect(unknown).rejects.toBeInstanceOf(Stripe.errors.StripeInvalidRequestError)
    await expect(unknown).rejects.toMatchObject(missingCustomer('cus_nope'))

    const customer = await stripe.customers.create({ email: 'stays@example.com' })
    standIn.failNext({ method: 'DELETE', path: `/v1/customers/${customer.id}`, status: 500 })
    await expect(stripe.customers.del(customer.id)).rejects.toBeInstanceOf(Stripe.errors.StripeAPIError)
    expect(await stripe.customers.retrieve(customer.id)).toMatchObject({ email: 'stays@example.com' })
    // The rule was used up: the retry deletes.
    await expect(stripe.customers.del(customer.id)).resolves.toMatchObject({ deleted: true })
  })
})

describe('hosted pages', () => {
  it('shows the checkout form and redirects to the success URL after paying', async () => {
    const session = await lifetimeSession({ customer_email: 'page@example.com' })
    const page = await fetch(session.url ?? '')
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toContain('text/html')
    const body = await page.text()
    expect(body).toContain(`<form method="post" action="/checkout/${session.id}/pay"`)
    expect(body).toContain('$149.00')
    expect(body).toContain('value="page@example.com"')

    const pay = () =>
      fetch(`${standIn.url}/checkout/${session.id}/pay`, {
        method: 'POST',
        body: new URLSearchParams({ email: 'page@example.com', outcome: 'succeeded' }),
        redirect: 'manual',
      })
    const paid = await pay()
    expect(paid.status).toBe(303)
    expect(paid.headers.get('location')).toBe(`https://app.example/thanks?session_id=${session.id}`)
    expect(types(receiver.received.map(({ event }) => event))).toContain('checkout.session.completed')
    expect((await pay()).status).toBe(409)

    const cancel = await fetch(`${standIn.url}/checkout/${(await lifetimeSession()).id}/cancel`, {
      method: 'POST',
      redirect: 'manual',
    })
    expect(cancel.status).toBe(303)
    expect(cancel.headers.get('location')).toBe(CANCEL_URL)
  })

  it('creates billing portal sessions whose page lists the subscriptions', async () => {
    const { session, subscriptionId } = await paidSubscription()
    const portal = await stripe.billingPortal.sessions.create({
      customer: idIn(session.customer ?? (await stripe.checkout.sessions.retrieve(session.id)).customer),
      return_url: 'https://app.example/account',
    })
    expect(portal.id).toMatch(/^bps_/)
    expect(portal.url).toBe(`${standIn.url}/portal/${portal.id}`)
    const page = await (await fetch(portal.url)).text()
    expect(page).toContain(`/portal/${portal.id}/subscriptions/${subscriptionId}/cancel`)
    expect(page).toContain('href="https://app.example/account"')

    // Cancelling in the portal keeps the paid period, as Stripe's portal does by default.
    receiver.clear()
    const cancelled = await fetch(`${standIn.url}/portal/${portal.id}/subscriptions/${subscriptionId}/cancel`, {
      method: 'POST',
      redirect: 'manual',
    })
    expect(cancelled.status).toBe(303)
    const subscription = await stripe.subscriptions.retrieve(subscriptionId)
    expect(subscription).toMatchObject({ status: 'active', cancel_at_period_end: true })
    expect(types(receiver.received.map(({ event }) => event))).toEqual(['customer.subscription.updated'])
    const after = await (await fetch(portal.url)).text()
    expect(after).toContain('ends ')
    expect(after).not.toContain(`/subscriptions/${subscriptionId}/cancel`)

    await expect(stripe.billingPortal.sessions.create({ customer: 'cus_missing' })).rejects.toMatchObject({
      code: 'resource_missing',
      param: 'customer',
    })
  })
})

describe('events', () => {
  it('redelivers an event with the same id and a fresh valid signature', async () => {
    const session = await lifetimeSession()
    receiver.answerNext(500)
    const [first] = await standIn.pay(session.id)
    if (!first) throw new Error('no event sent')
    const record = standIn.events().find(({ event }) => event.id === first.id)
    expect(record?.deliveries.map((delivery) => delivery.status)).toEqual([500])

    await new Promise((resolve) => setTimeout(resolve, 1_100))
    const firstSignature = receiver.received.find(({ event }) => event.id === first.id)?.signature
    receiver.clear()
    expect(await standIn.redeliver(first.id)).toEqual({ status: 200 })
    expect(receiver.rejected).toEqual([])
    expect(receiver.received.map(({ event }) => event.id)).toEqual([first.id])
    expect(receiver.received[0]?.signature).not.toBe(firstSignature)
    expect(record?.deliveries.map((delivery) => delivery.status)).toEqual([500, 200])
  })

  it('retries a delivery without a 2xx answer after each configured wait, as Stripe does, and then stops', async () => {
    // A receiver that refuses each event its first `refusals` deliveries (503), then takes it.
    let refusals = 0
    const seen = new Map<string, number>()
    const flaky = http.createServer((req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (chunk: Buffer) => chunks.push(chunk))
      req.on('end', () => {
        const id = (JSON.parse(Buffer.concat(chunks).toString()) as { id: string }).id
        seen.set(id, (seen.get(id) ?? 0) + 1)
        res.statusCode = seen.get(id)! <= refusals ? 503 : 200
        res.end('{}')
      })
    })
    await new Promise<void>((resolve) => flaky.listen(0, '127.0.0.1', resolve))
    const url = `http://127.0.0.1:${(flaky.address() as AddressInfo).port}/webhook`
    const retrying = await startProcessorStandIn({
      secretKey: SECRET_KEY,
      webhookSecret: WEBHOOK_SECRET,
      webhookUrl: url,
      random: seeded(3),
      retryDelaysMs: [50, 100],
    })
    try {
      const client = sdk(retrying)
      const statusesOf = (events: Stripe.Event[]) =>
        events.map((event) =>
          retrying
            .events()
            .find((record) => record.event.id === event.id)
            ?.deliveries.map((delivery) => delivery.status),
        )
      const settle = async (events: Stripe.Event[], deliveries: number) => {
        for (
          let wait = 0;
          wait < 750 && !statusesOf(events).every((statuses) => statuses?.length === deliveries);
          wait += 1
        ) {
          await new Promise((resolve) => setTimeout(resolve, 20))
        }
        await new Promise((resolve) => setTimeout(resolve, 300))
      }
      const purchase = async () =>
        retrying.pay(
          (
            await client.checkout.sessions.create({
              mode: 'payment',
              line_items: [{ price: LIFETIME, quantity: 1 }],
              success_url: SUCCESS_URL,
            })
          ).id,
        )

      // Refused twice, then taken: three deliveries of each event, the last one answered 200.
      refusals = 2
      const taken = await purchase()
      expect(taken.length).toBeGreaterThan(1)
      await settle(taken, 3)
      expect(statusesOf(taken)).toEqual(taken.map(() => [503, 503, 200]))

      // Refused every time: the delivery and one retry per configured wait, no more.
      refusals = 100
      const refused = await purchase()
      await settle(refused, 3)
      expect(statusesOf(refused)).toEqual(refused.map(() => [503, 503, 503]))
    } finally {
      await retrying.close()
      await new Promise<void>((resolve) => flaky.close(() => resolve()))
    }
  })

  it('signs crafted payloads the way webhooks are signed', () => {
    const payload = JSON.stringify({
      id: 'evt_crafted',
      object: 'event',
      type: 'charge.succeeded',
      data: { object: {} },
    })
    const event = stripe.webhooks.constructEvent(payload, standIn.sign(payload), WEBHOOK_SECRET)
    expect(event.id).toBe('evt_crafted')
    const stale = standIn.sign(payload, { timestamp: Math.floor(Date.now() / 1000) - 3600 })
    expect(() => stripe.webhooks.constructEvent(payload, stale, WEBHOOK_SECRET)).toThrow(/tolerance/)
    const forged = standIn.sign(payload, { secret: 'whsec_other' })
    expect(() => stripe.webhooks.constructEvent(payload, forged, WEBHOOK_SECRET)).toThrow()
  })
})

import './../support/billing-env'

import { beforeAll, describe, expect, it } from 'vitest'

import { PRICES, smtp, standIn } from '../support/billing-env'
import { buy, deliveryStatuses, rows, seedStandInPlans } from '../support/billing'
import { checkoutIdempotencyKey } from '../../src/billing/checkout'
import { api, createUser, usePayload } from '../support/payload'

const payload = usePayload()

beforeAll(async () => {
  await seedStandInPlans(payload())
})

const licenseOf = async (userId: number) => rows(payload(), 'licenses', { user: { equals: userId } })

describe('buying each plan, from checkout to license and email', () => {
  it('standard lifetime, signed in', async () => {
    const buyer = await createUser(payload(), 'customer')
    const { sessionId } = await buy(PRICES.standard, { as: buyer })
    expect(deliveryStatuses().every((status) => status.endsWith(':200'))).toBe(true)

    const [purchase] = await rows(payload(), 'one_time_purchases', { user: { equals: buyer.user.id } })
    expect(purchase).toMatchObject({
      status: 'succeeded',
      amount: 14900,
      currency: 'usd',
      processorCheckoutSessionId: sessionId,
    })
    expect(purchase?.processorPaymentIntentId).toMatch(/^pi_/)
    expect(purchase?.grantedAt).toBeTruthy()

    const licenses = await licenseOf(buyer.user.id)
    expect(licenses).toHaveLength(1)
    expect(licenses[0]).toMatchObject({
      status: 'active',
      source: 'one_time_purchase',
      oneTimePurchase: purchase!.id,
      validUntil: null,
    })

    const payments = await rows(payload(), 'payment_history', { user: { equals: buyer.user.id } })
    expect(payments).toMatchObject([{ amount: 14900, currency: 'usd', paymentType: 'one_time', status: 'succeeded' }])

    const names = (await rows(payload(), 'analytics_events', { user: { equals: buyer.user.id } }))
      .map((event) => event.name)
      .sort()
    expect(names).toEqual(['license_granted', 'payment_succeeded', 'purchase_completed'])

    const user = await payload().findByID({ collection: 'users', id: buyer.user.id })
    expect(user.processorCustomerId).toMatch(/^cus_/)

    await payload().jobs.run()
    const email = await smtp.waitFor((message) => message.text?.includes(licenses[0]!.key) ?? false)
    expect(email.subject).toBe('Your Starter Kit Standard license')
    expect([email.to].flat().map((to) => (to && 'text' in to ? to.text : ''))).toEqual([buyer.email])
    expect(email.html).toContain(licenses[0]!.key)
  })

  it('ultimate lifetime, anonymous: recorded against the checkout email, claimed by the verified account later', async () => {
    const email = `anon-${Date.now()}@example.test`
    await buy(PRICES.ultimate, { email })
    const [license] = await rows(payload(), 'licenses', { email: { equals: email } })
    expect(license).toMatchObject({ status: 'active', user: null })
    await payload().jobs.run()
    await smtp.waitFor((message) => message.text?.includes(license!.key) ?? false)

    // An unverified account with the same email claims nothing (and cannot sign in with its password).
    const unverified = await createUser(payload(), 'customer', { email, emailVerified: false })
    expect(await licenseOf(unverified.user.id)).toHaveLength(0)

    await payload().update({ collection: 'users', id: unverified.user.id, data: { emailVerified: true } })
    const login = await api('POST', '/users/login', { body: { email, password: unverified.password } })
    expect(login.status).toBe(200)
    const claimed = await licenseOf(unverified.user.id)
    expect(claimed.map((row) => row.id)).toEqual([license!.id])
    expect(await rows(payload(), 'one_time_purchases', { user: { equals: unverified.user.id } })).toHaveLength(1)
  })

  it.each([
    ['monthly', PRICES.proMonthly, 2900],
    ['yearly', PRICES.proYearly, 29000],
  ] as const)('pro %s subscription', async (cycle, priceId, amount) => {
    const buyer = await createUser(payload(), 'customer')
    await buy(priceId, { as: buyer })
    expect(deliveryStatuses().every((status) => status.endsWith(':200'))).toBe(true)

    const [subscription] = await rows(payload(), 'user_subscriptions', { user: { equals: buyer.user.id } })
    expect(subscription).toMatchObject({
      status: 'active',
      billingCycle: cycle,
      processorPriceId: priceId,
      cancelAtPeriodEnd: false,
    })
    expect(new Date(subscription!.currentPeriodEnd!).getTime()).toBeGreaterThan(Date.now())

    const [license] = await licenseOf(buyer.user.id)
    expect(license).toMatchObject({ status: 'active', source: 'subscription', subscription: subscription!.id })
    // valid until the end of the paid period plus the 7 grace days
    expect(new Date(license!.validUntil!).getTime()).toBe(
      new Date(subscription!.currentPeriodEnd!).getTime() + 7 * 86_400_000,
    )

    const payments = await rows(payload(), 'payment_history', { user: { equals: buyer.user.id } })
    expect(payments).toMatchObject([{ amount, paymentType: 'recurring', status: 'succeeded' }])
    expect(payments[0]?.processorPaymentId).toMatch(/^in_/)
    expect(payments[0]?.invoiceUrl).toBeTruthy()

    const names = (await rows(payload(), 'analytics_events', { user: { equals: buyer.user.id } }))
      .map((event) => event.name)
      .sort()
    expect(names).toEqual(['license_granted', 'payment_succeeded', 'subscription_started'])

    await payload().jobs.run()
    const email = await smtp.waitFor((message) => message.text?.includes(license!.key) ?? false)
    expect(email.subject).toBe('Your Starter Kit Pro license')
  })

  it('a second checkout by the same customer reuses their processor customer', async () => {
    const buyer = await createUser(payload(), 'customer')
    await buy(PRICES.standard, { as: buyer })
    const { customerId } = {
      customerId: (await payload().findByID({ collection: 'users', id: buyer.user.id })).processorCustomerId,
    }
    const checkout = await api('POST', '/checkout_sessions', { as: buyer, body: { priceId: PRICES.ultimate } })
    expect(checkout.status).toBe(200)
    expect(standIn.state.sessions.get(checkout.body.id)?.customer).toBe(customerId)
  })
})

describe('checkout session contract', () => {
  it("carries metadata, the mode of the price and the plan's promotion-code setting", async () => {
    const buyer = await createUser(payload(), 'customer')
    const lifetime = await api('POST', '/checkout_sessions', { as: buyer, body: { priceId: PRICES.standard } })
    expect(lifetime.status).toBe(200)
    expect(lifetime.body.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/checkout\/cs_test_/)
    const session = standIn.state.sessions.get(lifetime.body.id)!
    expect(session.mode).toBe('payment')
    expect(session.metadata).toEqual({
      user_id: String(buyer.user.id),
      plan_id: 'standard',
      price_id: PRICES.standard,
      billing_cycle: 'lifetime',
      seats: '1',
    })
    expect(session.allow_promotion_codes).toBe(true)
    expect(session.success_url).toBe('http://localhost:3000/success?session_id={CHECKOUT_SESSION_ID}')

    const recurring = await api('POST', '/checkout_sessions', { body: { priceId: PRICES.proYearly } })
    expect(recurring.status).toBe(200)
    const anonymous = standIn.state.sessions.get(recurring.body.id)!
    expect(anonymous.mode).toBe('subscription')
    expect(anonymous.metadata).toEqual({
      plan_id: 'pro',
      price_id: PRICES.proYearly,
      billing_cycle: 'yearly',
      seats: '1',
    })
  })

  it.each([
    ['no body', undefined, 'invalid_request'],
    ['not JSON', 'priceId=price_x', 'invalid_request'],
    ['an array', [], 'invalid_request'],
    ['no priceId', {}, 'invalid_request'],
    ['a number', { priceId: 42 }, 'invalid_request'],
    ['no price_ prefix', { priceId: 'prod_123' }, 'invalid_request'],
    ['a price no plan sells', { priceId: 'price_nobody_sells_this' }, 'unknown_price'],
    ['a live price with a test key', { priceId: PRICES.liveOnly }, 'unknown_price'],
  ])('400 for %s, and nothing is created', async (_name, body, code) => {
    const before = standIn.state.requests.filter((request) => request.path === '/v1/checkout/sessions').length
    const response = await api('POST', '/checkout_sessions', {
      body,
      headers: typeof body === 'string' ? { 'content-type': 'application/x-www-form-urlencoded' } : undefined,
    })
    expect(response.status).toBe(400)
    expect(response.body.errors[0].code).toBe(code)
    expect(standIn.state.requests.filter((request) => request.path === '/v1/checkout/sessions').length).toBe(before)
  })

  it('400 processor_mode_mismatch when a plan sells a price of the other mode', async () => {
    const admin = await createUser(payload(), 'admin')
    const created = await api('POST', '/plans', {
      as: admin,
      body: {
        slug: 'live-only',
        name: 'Live',
        billing: 'lifetime',
        monthlyPrice: 99,
        priceIds: { monthly: PRICES.liveOnly },
        featureAccess: ['basic'],
        buttonText: 'Buy',
        order: 9,
      },
    })
    expect(created.status).toBe(201)
    const response = await api('POST', '/checkout_sessions', { body: { priceId: PRICES.liveOnly } })
    expect(response.status).toBe(400)
    expect(response.body.errors[0].code).toBe('processor_mode_mismatch')
    await payload().delete({ collection: 'plans', id: created.body.doc.id })
  })

  it('400 unknown_price for the free plan and for an inactive plan', async () => {
    const admin = await createUser(payload(), 'admin')
    const [standard] = await rows(payload(), 'plans', { slug: { equals: 'standard' } })
    await api('PATCH', `/plans/${standard!.id}`, { as: admin, body: { active: false } })
    const inactive = await api('POST', '/checkout_sessions', { body: { priceId: PRICES.standard } })
    expect(inactive.status).toBe(400)
    expect(inactive.body.errors[0].code).toBe('unknown_price')
    await api('PATCH', `/plans/${standard!.id}`, { as: admin, body: { active: true } })
  })

  it.each([
    ['a 500', { status: 500 }],
    ['a 429', { status: 429 }],
    ['a timeout', { delayMs: 5_000 }],
  ])('502 processor_unavailable on %s from the processor, and no rows', async (_name, failure) => {
    const before = (await rows(payload(), 'one_time_purchases')).length
    standIn.failNext({ method: 'POST', path: '/v1/checkout/sessions', count: 2, ...failure })
    const response = await api('POST', '/checkout_sessions', {
      body: { priceId: PRICES.standard },
      headers: { 'idempotency-key': `fail-${Math.random()}` },
    })
    standIn.clearFailures()
    expect(response.status).toBe(502)
    expect(response.body).toEqual({ errors: [{ code: 'processor_unavailable', message: expect.any(String) }] })
    expect((await rows(payload(), 'one_time_purchases')).length).toBe(before)
  })

  it('a retried request with the same Idempotency-Key, or a double click, yields one session', async () => {
    const buyer = await createUser(payload(), 'customer')
    const first = await api('POST', '/checkout_sessions', {
      as: buyer,
      body: { priceId: PRICES.standard },
      headers: { 'idempotency-key': 'click-1' },
    })
    const retry = await api('POST', '/checkout_sessions', {
      as: buyer,
      body: { priceId: PRICES.standard },
      headers: { 'idempotency-key': 'click-1' },
    })
    expect(retry.body.id).toBe(first.body.id)

    const [a, b] = await Promise.all([
      api('POST', '/checkout_sessions', { as: buyer, body: { priceId: PRICES.ultimate } }),
      api('POST', '/checkout_sessions', { as: buyer, body: { priceId: PRICES.ultimate } }),
    ])
    expect(a.status).toBe(200)
    expect(b.body.id).toBe(a.body.id)

    const reused = await api('POST', '/checkout_sessions', {
      as: buyer,
      body: { priceId: PRICES.ultimate },
      headers: { 'idempotency-key': 'click-1' },
    })
    expect(reused.status).toBe(400)
    expect(reused.body.errors[0].code).toBe('invalid_request')
  })

  it('a double click either side of a ten-second boundary is one checkout; ten seconds after the first, another', async () => {
    const boundary = Math.ceil(Date.now() / 10_000) * 10_000 + 60_000
    const keyAt = (ms: number, scope = `boundary:${boundary}`) =>
      checkoutIdempotencyKey(payload(), scope, PRICES.standard, { idempotencyKey: null, now: new Date(ms) })
    const first = await keyAt(boundary - 1)
    expect(await keyAt(boundary + 1)).toBe(first)
    expect(await keyAt(boundary + 9_000)).toBe(first)
    expect(await keyAt(boundary + 10_000)).not.toBe(first)
    // Another buyer or price has its own window; a client's own key is used as it is.
    expect(await keyAt(boundary + 1, `boundary-other:${boundary}`)).not.toBe(first)
    const [a, b] = await Promise.all([
      keyAt(boundary + 60_000, `boundary-race:${boundary}`),
      keyAt(boundary + 60_001, `boundary-race:${boundary}`),
    ])
    expect(a).toBe(b)
  })
})

describe('customer portal', () => {
  it('401 without a session, 404 without a billing account', async () => {
    expect((await api('POST', '/customer_portal', { body: {} })).status).toBe(401)
    expect((await api('GET', '/customer_portal')).status).toBe(401)
    const stranger = await createUser(payload(), 'customer')
    const response = await api('POST', '/customer_portal', { as: stranger, body: { return_url: '/dashboard' } })
    expect(response.status).toBe(404)
    expect(response.body.errors[0].code).toBe('no_billing_account')
  })

  it('opens the portal for a customer, back to a same-site path only', async () => {
    const buyer = await createUser(payload(), 'customer')
    await buy(PRICES.proMonthly, { as: buyer })
    const post = await api('POST', '/customer_portal', { as: buyer, body: { return_url: '/dashboard?tab=billing' } })
    expect(post.status).toBe(200)
    expect(post.body.url).toMatch(/\/portal\/bps_/)
    const session = [...standIn.state.requests]
      .reverse()
      .find((request) => request.path === '/v1/billing_portal/sessions')
    expect(session).toBeTruthy()

    const get = await api('GET', '/customer_portal?return_url=%2Fdashboard', { as: buyer })
    expect(get.status).toBe(303)
    expect(get.headers.get('location')).toMatch(/\/portal\/bps_/)

    for (const bad of [
      'https://evil.example',
      '//evil.example',
      '/\\evil.example',
      '/%2F%2Fevil.example',
      'javascript:alert(1)',
    ]) {
      const response = await api('POST', '/customer_portal', { as: buyer, body: { return_url: bad } })
      expect(response.status).toBe(400)
      expect(response.body.errors[0].code).toBe('invalid_return_url')
    }
  })
})

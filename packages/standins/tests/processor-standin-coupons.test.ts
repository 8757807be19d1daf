import Stripe from 'stripe'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { startProcessorStandIn, type ProcessorStandIn } from '../src/processor'
import { idIn, sdkFor, standInCatalogue } from './sdk'

/**
 * Coupons, Checkout `discounts` and refunds of discounted charges, through the real SDK. A stand-in of
 * its own, so its coupons and their webhooks stay out of processor-standin.test.ts's exact event lists.
 */

const SECRET_KEY = 'sk_test_standin_coupons_0123456789'
const WEBHOOK_SECRET = 'whsec_standin_coupons_0123456789'
/** $149.00 one-time, usd. */
const LIFETIME = 'price_standin_standard_lifetime'
/** $299.00 one-time, usd. */
const ULTIMATE = 'price_standin_ultimate_lifetime'
/** €50.00 one-time. */
const EURO = 'price_coupons_euro'
const MONTHLY = 'price_standin_pro_monthly'
const SUCCESS_URL = 'https://app.example/thanks?session_id={CHECKOUT_SESSION_ID}'

let standIn: ProcessorStandIn
let stripe: Stripe
let counter = 0
/** Coupon IDs are account-wide; each test makes its own. */
const uniqueId = (name: string) => `${name.toUpperCase()}_${Date.now().toString(36)}_${(counter += 1)}`

beforeAll(async () => {
  standIn = await startProcessorStandIn({
    secretKey: SECRET_KEY,
    webhookSecret: WEBHOOK_SECRET,
    webhookUrl: null,
    prices: standInCatalogue(EURO),
  })
  stripe = sdkFor(standIn, SECRET_KEY)
})

afterAll(async () => {
  await standIn.close()
})

const types = (events: Stripe.Event[]) => events.map((event) => event.type)
const objectOf = <T>(events: Stripe.Event[], type: string): T => {
  const found = events.find((event) => event.type === type)
  if (!found) throw new Error(`no ${type} among ${types(events).join(', ')}`)
  return found.data.object as T
}

const session = (fields: Partial<Stripe.Checkout.SessionCreateParams> = {}) =>
  stripe.checkout.sessions.create({
    mode: 'payment',
    line_items: [{ price: LIFETIME, quantity: 1 }],
    success_url: SUCCESS_URL,
    ...fields,
  })

const withCoupon = (coupon: string, fields: Partial<Stripe.Checkout.SessionCreateParams> = {}) =>
  session({ discounts: [{ coupon }], ...fields })

/** Pays the session by card and returns its charge, looked up through the API. */
const payByCard = async (sessionId: string) => {
  const events = await standIn.pay(sessionId, { email: 'buyer@example.com' })
  const completed = await stripe.checkout.sessions.retrieve(sessionId)
  const paymentIntent = await stripe.paymentIntents.retrieve(idIn(completed.payment_intent))
  const charge = await stripe.charges.retrieve(idIn(paymentIntent.latest_charge))
  return { events, completed, paymentIntent, charge }
}

describe('coupons', () => {
  it('creates, retrieves and deletes a coupon with the fields Stripe returns', async () => {
    const id = uniqueId('save10')
    const redeemBy = Math.floor(Date.now() / 1000) + 3600
    const created = await stripe.coupons.create({
      id,
      amount_off: 1000,
      currency: 'USD',
      duration: 'repeating',
      duration_in_months: 3,
      max_redemptions: 5,
      redeem_by: redeemBy,
      name: '$10 off',
      metadata: { campaign: 'spring' },
    })
    expect(created).toEqual({
      id,
      object: 'coupon',
      amount_off: 1000,
      created: expect.any(Number),
      currency: 'usd',
      duration: 'repeating',
      duration_in_months: 3,
      livemode: false,
      max_redemptions: 5,
      metadata: { campaign: 'spring' },
      name: '$10 off',
      percent_off: null,
      redeem_by: redeemBy,
      times_redeemed: 0,
      valid: true,
    })
    expect(created.created).toBeGreaterThan(Date.now() / 1000 - 60)

    const retrieved = await stripe.coupons.retrieve(id)
    expect(retrieved).toEqual(created)

    const deleted = await stripe.coupons.del(id)
    expect(deleted).toEqual({ id, object: 'coupon', deleted: true })
    await expect(stripe.coupons.retrieve(id)).rejects.toMatchObject({
      type: 'StripeInvalidRequestError',
      statusCode: 404,
      code: 'resource_missing',
      param: 'id',
      message: `No such coupon: '${id}'`,
    })
    await expect(stripe.coupons.del(id)).rejects.toMatchObject({ statusCode: 404, code: 'resource_missing' })
  })

  it('generates an ID, defaults to duration once, and lists the coupons', async () => {
    const coupon = await stripe.coupons.create({ percent_off: 25.5 })
    expect(coupon.id).toMatch(/^[A-Za-z0-9]{8}$/)
    expect(coupon).toMatchObject({
      percent_off: 25.5,
      amount_off: null,
      currency: null,
      duration: 'once',
      duration_in_months: null,
      max_redemptions: null,
      redeem_by: null,
      name: null,
      metadata: {},
    })
    const listed = await stripe.coupons.list({ limit: 100 })
    expect(listed.data.map((entry) => entry.id)).toContain(coupon.id)
    expect(standIn.state.coupons.get(coupon.id)?.percent_off).toBe(25.5)
  })

  it('refuses a duplicate ID and every invalid parameter like Stripe', async () => {
    const id = uniqueId('dup')
    await stripe.coupons.create({ id, percent_off: 10 })
    await expect(stripe.coupons.create({ id, percent_off: 20 })).rejects.toMatchObject({
      type: 'StripeInvalidRequestError',
      statusCode: 400,
      code: 'resource_already_exists',
      param: 'id',
      message: 'Coupon already exists.',
    })
    expect(standIn.state.coupons.get(id)?.percent_off).toBe(10)

    const refusals: [Stripe.CouponCreateParams, Record<string, unknown>][] = [
      [{ duration: 'once' }, { message: 'You must pass either `percent_off` or `amount_off`.' }],
      [
        { amount_off: 500, percent_off: 5, currency: 'usd' },
        { message: 'You may only specify one of these parameters: amount_off, percent_off.', param: 'amount_off' },
      ],
      [
        { amount_off: 500 },
        { code: 'parameter_missing', param: 'currency', message: 'Missing required param: currency.' },
      ],
      [
        { amount_off: 0, currency: 'usd' },
        { param: 'amount_off', message: 'This value must be greater than or equal to 1.' },
      ],
      [{ percent_off: 0 }, { param: 'percent_off' }],
      [{ percent_off: 100.5 }, { param: 'percent_off' }],
      [
        { percent_off: 10, duration: 'weekly' },
        { param: 'duration', message: expect.stringContaining('Invalid duration') },
      ],
      [
        { percent_off: 10, duration: 'repeating' },
        {
          code: 'parameter_missing',
          param: 'duration_in_months',
          message: 'Missing required param: duration_in_months.',
        },
      ],
      [{ percent_off: 10, duration: 'once', duration_in_months: 3 }, { param: 'duration_in_months' }],
      [{ percent_off: 10, duration: 'repeating', duration_in_months: 0 }, { param: 'duration_in_months' }],
      [
        { percent_off: 10, max_redemptions: 0 },
        { param: 'max_redemptions', message: 'This value must be greater than or equal to 1.' },
      ],
      [
        { percent_off: 10, redeem_by: Math.floor(Date.now() / 1000) - 60 },
        { param: 'redeem_by', message: '`redeem_by` must be in the future.' },
      ],
    ]
    const before = standIn.state.coupons.size
    for (const [params, expected] of refusals) {
      const attempt = stripe.coupons.create(params)
      await expect(attempt, JSON.stringify(params)).rejects.toBeInstanceOf(Stripe.errors.StripeInvalidRequestError)
      await expect(attempt, JSON.stringify(params)).rejects.toMatchObject({ statusCode: 400, ...expected })
    }
    expect(standIn.state.coupons.size).toBe(before)
  })

  it('keeps the coupons of one mode from a key of the other', async () => {
    const live = await startProcessorStandIn({
      secretKey: 'sk_live_standin_coupons_0123456789',
      webhookSecret: WEBHOOK_SECRET,
      webhookUrl: null,
    })
    try {
      const liveStripe = sdkFor(live, 'sk_live_standin_coupons_0123456789')
      const coupon = await liveStripe.coupons.create({ id: 'LIVE10', percent_off: 10 })
      expect(coupon.livemode).toBe(true)
      await expect(stripe.coupons.retrieve('LIVE10')).rejects.toMatchObject({ code: 'resource_missing' })
    } finally {
      await live.close()
    }
  })
})

describe('checkout sessions with discounts', () => {
  it('shows the discount in amount_total, total_details, discounts and the line items', async () => {
    const id = uniqueId('quarter')
    await stripe.coupons.create({ id, percent_off: 25.5 })
    const created = await withCoupon(id)
    // 14900 × 25.5% = 3799.5, rounded half up.
    expect(created).toMatchObject({
      amount_subtotal: 14900,
      amount_total: 11100,
      total_details: { amount_discount: 3800, amount_shipping: 0, amount_tax: 0 },
      discounts: [{ coupon: id, promotion_code: null }],
      status: 'open',
    })
    const lines = await stripe.checkout.sessions.listLineItems(created.id)
    expect(lines.data).toHaveLength(1)
    expect(lines.data[0]).toMatchObject({ amount_subtotal: 14900, amount_discount: 3800, amount_total: 11100 })

    const expanded = await stripe.checkout.sessions.retrieve(created.id, { expand: ['discounts.coupon'] })
    expect(expanded.discounts?.[0]?.coupon).toMatchObject({ object: 'coupon', id, percent_off: 25.5 })

    const page = await (await fetch(String(created.url))).text()
    // The line at its price, the discount on a line of its own, then the total.
    expect(page).toContain('<td>1</td><td>$149.00</td>')
    expect(page).toContain('Discount: -$38.00')
    expect(page).toContain('Total: $111.00')

    const plain = await session()
    expect(plain).toMatchObject({ amount_total: 14900, discounts: [], total_details: { amount_discount: 0 } })
  })

  it('caps amount_off at the subtotal and spreads the discount over several line items', async () => {
    const id = uniqueId('fifty')
    await stripe.coupons.create({ id, amount_off: 5000, currency: 'usd' })
    const created = await withCoupon(id, {
      line_items: [
        { price: LIFETIME, quantity: 1 },
        { price: ULTIMATE, quantity: 1 },
      ],
    })
    expect(created).toMatchObject({
      amount_subtotal: 44800,
      amount_total: 39800,
      total_details: { amount_discount: 5000 },
    })
    const lines = (await stripe.checkout.sessions.listLineItems(created.id)).data
    expect(lines.map((line) => line.amount_discount)).toEqual([1663, 3337])
    expect(lines.map((line) => line.amount_total)).toEqual([13237, 26563])

    const huge = uniqueId('huge')
    await stripe.coupons.create({ id: huge, amount_off: 100_000, currency: 'usd' })
    expect(await withCoupon(huge)).toMatchObject({
      amount_subtotal: 14900,
      amount_total: 0,
      total_details: { amount_discount: 14900 },
    })
  })

  it('refuses an unknown coupon, a coupon in another currency, promotion codes and subscription mode', async () => {
    await expect(withCoupon('NOPE')).rejects.toMatchObject({
      type: 'StripeInvalidRequestError',
      statusCode: 400,
      code: 'resource_missing',
      param: 'discounts[0][coupon]',
      message: "No such coupon: 'NOPE'",
    })

    const usd = uniqueId('usd5')
    await stripe.coupons.create({ id: usd, amount_off: 500, currency: 'usd' })
    await expect(withCoupon(usd, { line_items: [{ price: EURO, quantity: 1 }] })).rejects.toMatchObject({
      statusCode: 400,
      param: 'discounts[0][coupon]',
      message: `The coupon ${usd} is for amounts in usd, but this Checkout Session is in eur.`,
    })
    // A percentage applies in any currency.
    const percent = uniqueId('pct')
    await stripe.coupons.create({ id: percent, percent_off: 10, currency: 'usd' })
    expect(await withCoupon(percent, { line_items: [{ price: EURO, quantity: 1 }] })).toMatchObject({
      currency: 'eur',
      amount_total: 4500,
    })

    await expect(session({ discounts: [{ promotion_code: 'promo_nope' }] })).rejects.toMatchObject({
      code: 'resource_missing',
      param: 'discounts[0][promotion_code]',
    })
    await expect(
      stripe.checkout.sessions.create({
        mode: 'subscription',
        line_items: [{ price: MONTHLY, quantity: 1 }],
        success_url: SUCCESS_URL,
        discounts: [{ coupon: percent }],
      }),
    ).rejects.toMatchObject({ statusCode: 400, param: 'discounts' })
  })

  it('refuses allow_promotion_codes together with discounts', async () => {
    const id = uniqueId('promo')
    await stripe.coupons.create({ id, percent_off: 10 })
    const sessions = standIn.state.sessions.size
    await expect(withCoupon(id, { allow_promotion_codes: true })).rejects.toMatchObject({
      type: 'StripeInvalidRequestError',
      statusCode: 400,
      param: 'allow_promotion_codes',
      message: 'You may only specify one of these parameters: allow_promotion_codes, discounts.',
    })
    expect(standIn.state.sessions.size).toBe(sessions)
    await expect(session({ allow_promotion_codes: true })).resolves.toMatchObject({ allow_promotion_codes: true })
  })

  it('refuses a coupon whose redeem_by has passed', async () => {
    const id = uniqueId('soon')
    const redeemBy = Math.floor(Date.now() / 1000) + 1
    await stripe.coupons.create({ id, percent_off: 10, redeem_by: redeemBy })
    await expect(withCoupon(id)).resolves.toMatchObject({ amount_total: 13410 })
    // Redeemable through the second `redeem_by` names; refused from the next one on.
    while (Math.floor(Date.now() / 1000) <= redeemBy) await new Promise((resolve) => setTimeout(resolve, 100))
    expect((await stripe.coupons.retrieve(id)).valid).toBe(false)
    await expect(withCoupon(id)).rejects.toMatchObject({
      statusCode: 400,
      code: 'coupon_expired',
      param: 'discounts[0][coupon]',
      message: `Coupon ${id} is no longer valid.`,
    })
  })
})

describe('paying a discounted session', () => {
  it('charges the discounted total and redeems the coupon', async () => {
    const id = uniqueId('twenty')
    await stripe.coupons.create({ id, percent_off: 20, max_redemptions: 10 })
    const created = await withCoupon(id, { payment_intent_data: { metadata: { userId: '9' } } })
    const { events, completed, paymentIntent, charge } = await payByCard(created.id)

    expect(types(events).sort()).toEqual(['charge.succeeded', 'checkout.session.completed', 'payment_intent.succeeded'])
    expect(completed).toMatchObject({
      status: 'complete',
      payment_status: 'paid',
      amount_subtotal: 14900,
      amount_total: 11920,
      total_details: { amount_discount: 2980 },
    })
    expect(objectOf<Stripe.Checkout.Session>(events, 'checkout.session.completed').amount_total).toBe(11920)
    expect(paymentIntent).toMatchObject({
      status: 'succeeded',
      amount: 11920,
      amount_received: 11920,
      metadata: { userId: '9' },
    })
    expect(charge).toMatchObject({ amount: 11920, amount_captured: 11920, paid: true })
    expect(await stripe.coupons.retrieve(id)).toMatchObject({ times_redeemed: 1, valid: true })
  })

  it('lets a single-use coupon through once: the second session is refused at payment and stays open', async () => {
    const id = uniqueId('once')
    await stripe.coupons.create({ id, amount_off: 2000, currency: 'usd', max_redemptions: 1 })
    const first = await withCoupon(id)
    const second = await withCoupon(id)
    expect(second.amount_total).toBe(12900)

    const paid = await payByCard(first.id)
    expect(paid.charge.amount).toBe(12900)
    expect(await stripe.coupons.retrieve(id)).toMatchObject({ times_redeemed: 1, max_redemptions: 1, valid: false })

    const paymentIntents = standIn.state.paymentIntents.size
    const charges = standIn.state.charges.size
    const eventCount = standIn.events().length
    await expect(standIn.pay(second.id)).rejects.toMatchObject({
      status: 400,
      message: `Coupon ${id} is no longer valid.`,
      body: { error: { code: 'coupon_expired', type: 'invalid_request_error' } },
    })
    const after = await stripe.checkout.sessions.retrieve(second.id)
    expect(after).toMatchObject({ status: 'open', payment_status: 'unpaid', payment_intent: null })
    expect(standIn.state.paymentIntents.size).toBe(paymentIntents)
    expect(standIn.state.charges.size).toBe(charges)
    expect(standIn.events()).toHaveLength(eventCount)
    expect((await stripe.coupons.retrieve(id)).times_redeemed).toBe(1)

    // The hosted page keeps the buyer on the checkout with the reason, uncharged.
    const page = await fetch(`${standIn.url}/checkout/${second.id}/pay`, {
      method: 'POST',
      body: new URLSearchParams({ email: 'late@example.com', outcome: 'succeeded' }),
      redirect: 'manual',
    })
    expect(page.status).toBe(400)
    const body = await page.text()
    expect(body).toContain(`Coupon ${id} is no longer valid.`)
    expect(body).toContain(`action="/checkout/${second.id}/pay"`)
    expect((await stripe.checkout.sessions.retrieve(second.id)).status).toBe('open')

    // A used-up coupon is refused when the session is created.
    await expect(withCoupon(id)).rejects.toMatchObject({
      statusCode: 400,
      code: 'coupon_expired',
      param: 'discounts[0][coupon]',
      message: `Coupon ${id} is no longer valid.`,
    })
  })

  it('refuses payment once the coupon was deleted, and redeems on a delayed payment at completion', async () => {
    const gone = uniqueId('gone')
    await stripe.coupons.create({ id: gone, percent_off: 10 })
    const orphan = await withCoupon(gone)
    await stripe.coupons.del(gone)
    await expect(standIn.pay(orphan.id)).rejects.toMatchObject({
      status: 400,
      message: `Coupon ${gone} is no longer valid.`,
    })

    const id = uniqueId('bank')
    await stripe.coupons.create({ id, percent_off: 50, max_redemptions: 2 })
    const delayed = await withCoupon(id)
    const events = await standIn.pay(delayed.id, { outcome: 'async_succeeded' })
    expect(objectOf<Stripe.Charge>(events, 'charge.succeeded').amount).toBe(7450)
    expect((await stripe.coupons.retrieve(id)).times_redeemed).toBe(1)

    // A declined card redeems nothing; the retry charges the discounted amount.
    const declinedFirst = await withCoupon(id)
    const declined = await standIn.pay(declinedFirst.id, { outcome: 'declined' })
    expect(objectOf<Stripe.PaymentIntent>(declined, 'payment_intent.payment_failed').amount).toBe(7450)
    expect((await stripe.coupons.retrieve(id)).times_redeemed).toBe(1)
    const retried = await payByCard(declinedFirst.id)
    expect(retried.charge.amount).toBe(7450)
    expect(await stripe.coupons.retrieve(id)).toMatchObject({ times_redeemed: 2, valid: false })
  })

  it('completes a fully discounted session without a payment: no_payment_required', async () => {
    const id = uniqueId('free')
    await stripe.coupons.create({ id, percent_off: 100, max_redemptions: 1 })
    const created = await withCoupon(id, { customer_email: 'free@example.com' })
    expect(created).toMatchObject({
      amount_subtotal: 14900,
      amount_total: 0,
      total_details: { amount_discount: 14900 },
    })

    const page = await (await fetch(String(created.url))).text()
    expect(page).toContain('value="succeeded"')
    expect(page).not.toContain('value="declined"')
    await expect(standIn.pay(created.id, { outcome: 'declined' })).rejects.toMatchObject({ status: 400 })

    const paymentIntents = standIn.state.paymentIntents.size
    const events = await standIn.pay(created.id)
    expect(types(events)).toEqual(['checkout.session.completed'])
    const completed = await stripe.checkout.sessions.retrieve(created.id)
    expect(completed).toMatchObject({
      status: 'complete',
      payment_status: 'no_payment_required',
      payment_intent: null,
      amount_total: 0,
      customer_details: { email: 'free@example.com' },
    })
    expect(standIn.state.paymentIntents.size).toBe(paymentIntents)
    expect(await stripe.coupons.retrieve(id)).toMatchObject({ times_redeemed: 1, valid: false })
  })
})

describe('refunds of discounted charges', () => {
  const discountedCharge = async () => {
    const id = uniqueId('refund')
    await stripe.coupons.create({ id, amount_off: 4900, currency: 'usd' })
    const { charge, paymentIntent } = await payByCard((await withCoupon(id)).id)
    expect(charge.amount).toBe(10000)
    return { charge, paymentIntent }
  }

  it('refunds the discounted amount in full, then refuses to refund again', async () => {
    const { charge, paymentIntent } = await discountedCharge()
    const refund = await stripe.refunds.create({ payment_intent: paymentIntent.id })
    expect(refund).toMatchObject({ object: 'refund', amount: 10000, charge: charge.id, status: 'succeeded' })
    expect(await stripe.charges.retrieve(charge.id)).toMatchObject({ amount_refunded: 10000, refunded: true })

    await expect(stripe.refunds.create({ charge: charge.id })).rejects.toMatchObject({
      type: 'StripeInvalidRequestError',
      statusCode: 400,
      code: 'charge_already_refunded',
      message: `Charge ${charge.id} has already been refunded.`,
    })
  })

  it('refuses more than the unrefunded amount with amount_too_large', async () => {
    const { charge } = await discountedCharge()
    // More than the discounted charge, less than the undiscounted price.
    await expect(stripe.refunds.create({ charge: charge.id, amount: 14900 })).rejects.toMatchObject({
      statusCode: 400,
      code: 'amount_too_large',
      param: 'amount',
      message: 'Refund amount ($149.00) is greater than unrefunded amount on charge ($100.00)',
    })
    await stripe.refunds.create({ charge: charge.id, amount: 2500 })
    await expect(stripe.refunds.create({ charge: charge.id, amount: 7501 })).rejects.toMatchObject({
      code: 'amount_too_large',
      message: 'Refund amount ($75.01) is greater than unrefunded amount on charge ($75.00)',
    })
    await expect(stripe.refunds.create({ charge: charge.id, amount: 7500 })).resolves.toMatchObject({ amount: 7500 })
    expect(await stripe.charges.retrieve(charge.id)).toMatchObject({ amount_refunded: 10000, refunded: true })
  })

  it('answers an unknown charge or payment intent with resource_missing', async () => {
    await expect(stripe.refunds.create({ charge: 'ch_missing' })).rejects.toMatchObject({
      statusCode: 400,
      code: 'resource_missing',
      param: 'charge',
      message: "No such charge: 'ch_missing'",
    })
    await expect(stripe.refunds.create({ payment_intent: 'pi_missing' })).rejects.toMatchObject({
      statusCode: 400,
      code: 'resource_missing',
      param: 'payment_intent',
      message: "No such payment_intent: 'pi_missing'",
    })
  })

  it('answers a repeated Idempotency-Key with the same refund, refunding once', async () => {
    const { charge } = await discountedCharge()
    const refunds = standIn.state.refunds.size
    const first = await stripe.refunds.create({ charge: charge.id, amount: 3000 }, { idempotencyKey: 'refund-key-1' })
    const again = await stripe.refunds.create({ charge: charge.id, amount: 3000 }, { idempotencyKey: 'refund-key-1' })
    expect(again.id).toBe(first.id)
    expect(again.lastResponse.headers['idempotent-replayed']).toBe('true')
    expect(first.lastResponse.headers['idempotent-replayed']).toBeUndefined()
    expect(standIn.state.refunds.size).toBe(refunds + 1)
    expect(await stripe.charges.retrieve(charge.id)).toMatchObject({ amount_refunded: 3000, refunded: false })

    await expect(
      stripe.refunds.create({ charge: charge.id, amount: 4000 }, { idempotencyKey: 'refund-key-1' }),
    ).rejects.toBeInstanceOf(Stripe.errors.StripeIdempotencyError)
    const other = await stripe.refunds.create({ charge: charge.id, amount: 3000 }, { idempotencyKey: 'refund-key-2' })
    expect(other.id).not.toBe(first.id)
    expect(await stripe.charges.retrieve(charge.id)).toMatchObject({ amount_refunded: 6000 })
  })
})

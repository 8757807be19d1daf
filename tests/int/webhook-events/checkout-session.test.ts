/** src/billing/webhook/events/checkout-session.ts: checkout.session.completed, async_payment_succeeded, async_payment_failed. */
import '../../support/billing-env'

import { describe, expect, it } from 'vitest'

import { applyPurchaseFacts } from '../../../src/billing/purchases'
import { idOf } from '../../../src/billing/processor'
import { inTransaction } from '../../../src/db/transaction'
import { PRICES, service, standIn } from '../../support/billing-env'
import {
  analyticsNamed,
  customerBuys,
  deliver,
  effectsFor,
  eventOf,
  eventRow,
  objectOf,
  payQuietly,
  uniqueEmail,
  usePayloadWithPlans,
} from '../../support/webhook'

const payload = usePayloadWithPlans()

describe('checkout.session.completed', () => {
  it('a paid one-time checkout alone: the purchase and its license, for the signed-in buyer, whose processor customer is remembered', async () => {
    const { buyer, sessionId, events } = await customerBuys(payload(), PRICES.standard, { quiet: true })
    const completed = eventOf(events, 'checkout.session.completed')
    expect(await deliver(completed)).toEqual([200])

    const effects = await effectsFor(payload(), buyer.user.id)
    expect(effects.purchases).toMatchObject([
      {
        status: 'succeeded',
        amount: 14900,
        currency: 'usd',
        processorCheckoutSessionId: sessionId,
        processorPaymentIntentId: idOf(completed.data.object.payment_intent),
      },
    ])
    expect(effects.purchases[0]!.grantedAt).toBeTruthy()
    expect(effects.licenses).toMatchObject([
      { status: 'active', source: 'one_time_purchase', oneTimePurchase: effects.purchases[0]!.id },
    ])
    // The payment's history row is payment_intent.succeeded's to write.
    expect(effects.payments).toEqual([])
    expect(effects.analytics).toEqual(['license_granted', 'purchase_completed'])
    const user = await payload().findByID({ collection: 'users', id: buyer.user.id })
    expect(user.processorCustomerId).toBe(idOf(completed.data.object.customer))
    expect(await eventRow(payload(), completed)).toMatchObject({ status: 'processed', attempts: 1 })
  })

  it('a paid one-time checkout is applied from the event itself: the processor is not asked', async () => {
    const email = uniqueEmail('fromevent')
    const events = await payQuietly(PRICES.standard, email)
    const completed = events.find((event) => event.type === 'checkout.session.completed')!
    expect(completed.data.object).toMatchObject({ mode: 'payment', payment_status: 'paid' })
    // Every read of a checkout session would fail: the event must not need one.
    standIn.failNext({ method: 'GET', path: /^\/v1\/checkout\/sessions/, status: 500, count: 100 })
    try {
      expect((await standIn.redeliver(completed.id)).status).toBe(200)
    } finally {
      standIn.clearFailures()
    }
    const effects = await effectsFor(payload(), email)
    expect(effects.purchases).toMatchObject([{ status: 'succeeded' }])
    expect(effects.licenses).toMatchObject([{ status: 'active' }])
  })

  it('a subscription checkout alone brings in its subscription and license, for the buyer its metadata names', async () => {
    const { buyer, events } = await customerBuys(payload(), PRICES.proMonthly, { quiet: true })
    expect(await deliver(eventOf(events, 'checkout.session.completed'))).toEqual([200])

    const effects = await effectsFor(payload(), buyer.user.id)
    expect(effects.subscriptions).toMatchObject([
      {
        status: 'active',
        billingCycle: 'monthly',
        processorPriceId: PRICES.proMonthly,
        processorSubscriptionId: objectOf(events, 'customer.subscription.created').id,
      },
    ])
    expect(effects.licenses).toMatchObject([
      { status: 'active', source: 'subscription', subscription: effects.subscriptions[0]!.id },
    ])
    expect(effects.purchases).toEqual([])
    // The invoice's payment is invoice.payment_succeeded's to record.
    expect(effects.payments).toEqual([])
    expect(effects.analytics).toEqual(['license_granted', 'subscription_started'])
  })
})

describe('checkout.session.async_payment_succeeded and async_payment_failed', () => {
  it('async payment: a pending purchase grants nothing; once it succeeds the license follows', async () => {
    const email = uniqueEmail('async-ok')
    const plan = (await payload().find({ collection: 'plans', where: { slug: { equals: 'standard' } } })).docs[0]!
    await inTransaction(payload(), (req) =>
      applyPurchaseFacts(
        req,
        { paymentIntentId: `pi_pending_${email}`, status: 'pending', amount: 14900, plan, email },
        { graceDays: 7 },
      ),
    )
    let effects = await effectsFor(payload(), email)
    expect(effects.purchases).toMatchObject([{ status: 'pending' }])
    expect(effects.licenses).toHaveLength(0)

    const paidEmail = uniqueEmail('async-paid')
    const events = await payQuietly(PRICES.standard, paidEmail, 'async_succeeded')
    expect(events.map((event) => event.type)).toEqual(
      expect.arrayContaining(['checkout.session.completed', 'checkout.session.async_payment_succeeded']),
    )
    for (const event of events) expect((await standIn.redeliver(event.id)).status).toBe(200)
    effects = await effectsFor(payload(), paidEmail)
    expect(effects.purchases).toMatchObject([{ status: 'succeeded' }])
    expect(effects.licenses).toMatchObject([{ status: 'active' }])
  })

  it('the completed event of an async payment, delivered once the payment settled, reads the session afresh; async_payment_succeeded then adds nothing', async () => {
    const email = uniqueEmail('async-steps')
    const events = await payQuietly(PRICES.standard, email, 'async_succeeded')
    const completed = eventOf(events, 'checkout.session.completed')
    // The event's copy is still unpaid; the processor's session is paid by now.
    expect(completed.data.object.payment_status).toBe('unpaid')
    expect(await deliver(completed)).toEqual([200])
    const afterCompleted = await effectsFor(payload(), email)
    expect(afterCompleted.purchases).toMatchObject([
      { status: 'succeeded', processorCheckoutSessionId: completed.data.object.id },
    ])
    expect(afterCompleted.licenses).toMatchObject([{ status: 'active' }])

    expect(await deliver(eventOf(events, 'checkout.session.async_payment_succeeded'))).toEqual([200])
    const effects = await effectsFor(payload(), email)
    expect(effects.purchases).toMatchObject([{ status: 'succeeded', id: afterCompleted.purchases[0]!.id }])
    expect(effects.licenses.map((license) => license.id)).toEqual(afterCompleted.licenses.map((license) => license.id))
    expect(effects.analytics).toEqual(['license_granted', 'purchase_completed'])
  })

  it('async payment failure: the purchase is failed and no license is granted', async () => {
    const email = uniqueEmail('async-fail')
    const events = await payQuietly(PRICES.standard, email, 'async_failed')
    for (const event of events) expect((await standIn.redeliver(event.id)).status).toBe(200)
    const effects = await effectsFor(payload(), email)
    expect(effects.purchases).toMatchObject([{ status: 'failed' }])
    expect(effects.purchases[0]!.grantedAt).toBeNull()
    expect(effects.licenses).toHaveLength(0)
    expect(effects.analytics).toContain('payment_failed')
    // Named after the failure event, with the session it failed.
    const failed = eventOf(events, 'checkout.session.async_payment_failed')
    expect(await analyticsNamed(payload(), email, 'payment_failed')).toMatchObject([
      { sourceEventId: failed.id, properties: { checkoutSessionId: failed.data.object.id } },
    ])
  })

  it('a declined card changes nothing', async () => {
    const email = uniqueEmail('declined')
    const events = await payQuietly(PRICES.standard, email, undefined)
    expect(events.length).toBeGreaterThan(0)
    const declinedEmail = uniqueEmail('declined2')
    const checkout = await fetch(`${service.url}/api/checkout_sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': `declined-${Math.random()}` },
      body: JSON.stringify({ priceId: PRICES.standard }),
    }).then((response) => response.json() as Promise<{ id: string }>)
    await standIn.pay(checkout.id, { email: declinedEmail, outcome: 'declined' })
    const effects = await effectsFor(payload(), declinedEmail)
    expect(effects.purchases).toHaveLength(0)
    expect(effects.licenses).toHaveLength(0)
  })
})

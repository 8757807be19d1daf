/** src/billing/webhook/events/customer-subscription.ts: customer.subscription.created, updated, deleted. */
import '../../support/billing-env'

import { describe, expect, it } from 'vitest'

import { PRICES, standIn } from '../../support/billing-env'
import { rows } from '../../support/billing'
import {
  analyticsNamed,
  customerBuys,
  customerSubscribes,
  deliver,
  effectsFor,
  eventOf,
  quietly,
  usePayloadWithPlans,
} from '../../support/webhook'

const payload = usePayloadWithPlans()

describe('customer.subscription.created', () => {
  it('alone: the subscription, its license until the period end plus the grace days, subscription_started', async () => {
    const { buyer, events } = await customerBuys(payload(), PRICES.proYearly, { quiet: true })
    const created = eventOf(events, 'customer.subscription.created')
    expect(await deliver(created)).toEqual([200])

    const effects = await effectsFor(payload(), buyer.user.id)
    const [subscription] = effects.subscriptions
    expect(effects.subscriptions).toMatchObject([
      {
        status: 'active',
        billingCycle: 'yearly',
        processorPriceId: PRICES.proYearly,
        processorSubscriptionId: created.data.object.id,
        cancelAtPeriodEnd: false,
      },
    ])
    expect(new Date(subscription!.currentPeriodEnd!).getTime()).toBeGreaterThan(Date.now())
    expect(effects.licenses).toMatchObject([
      { status: 'active', source: 'subscription', subscription: subscription!.id },
    ])
    expect(new Date(effects.licenses[0]!.validUntil!).getTime()).toBe(
      new Date(subscription!.currentPeriodEnd!).getTime() + 7 * 86_400_000,
    )
    expect(effects.payments).toEqual([])
    expect(effects.analytics).toEqual(['license_granted', 'subscription_started'])
    const user = await payload().findByID({ collection: 'users', id: buyer.user.id })
    expect(user.processorCustomerId).toBe(subscription!.processorCustomerId)
  })
})

describe('customer.subscription.updated', () => {
  it('two updates delivered newest first end at the newest state: each read from the processor, each in analytics', async () => {
    const { buyer, subscriptionId } = await customerSubscribes(payload(), PRICES.proMonthly)
    const { first, second } = await quietly(async () => ({
      first: await standIn.updateSubscription(subscriptionId, { cancelAtPeriodEnd: true }),
      second: await standIn.updateSubscription(subscriptionId, { cancelAtPeriodEnd: false }),
    }))
    const older = eventOf(first, 'customer.subscription.updated')
    const newer = eventOf(second, 'customer.subscription.updated')
    expect(older.data.object.cancel_at_period_end).toBe(true)

    expect(await deliver(newer, older)).toEqual([200, 200])
    const { subscriptions, licenses } = await effectsFor(payload(), buyer.user.id)
    expect(subscriptions).toMatchObject([{ status: 'active', cancelAtPeriodEnd: false }])
    expect(licenses).toMatchObject([{ status: 'active' }])
    const updates = await analyticsNamed(payload(), buyer.user.id, 'subscription_updated')
    expect(updates.map((event) => event.sourceEventId).sort()).toEqual([newer.id, older.id].sort())
    expect(updates.map((event) => event.properties)).toEqual([
      { status: 'active', cancelAtPeriodEnd: false },
      { status: 'active', cancelAtPeriodEnd: false },
    ])
  })

  it('subscription updated, payment failed (past due keeps access), renewed, deleted (expires)', async () => {
    const { buyer, subscriptionId } = await customerSubscribes(payload(), PRICES.proYearly)
    const state = async () => ({
      subscription: (await rows(payload(), 'user_subscriptions', { user: { equals: buyer.user.id } }))[0]!,
      license: (await rows(payload(), 'licenses', { user: { equals: buyer.user.id } }))[0]!,
    })

    await standIn.updateSubscription(subscriptionId, { cancelAtPeriodEnd: true })
    await standIn.settled()
    expect((await state()).subscription.cancelAtPeriodEnd).toBe(true)

    await standIn.failInvoicePayment(subscriptionId)
    await standIn.settled()
    let current = await state()
    expect(current.subscription.status).toBe('past_due')
    expect(current.license.status).toBe('active')
    const failed = await rows(payload(), 'payment_history', {
      and: [{ user: { equals: buyer.user.id } }, { status: { equals: 'failed' } }],
    })
    expect(failed).toHaveLength(1)

    // The failed renewal opened the next period; paying it restores active without moving it again.
    const unpaidPeriodEnd = current.subscription.currentPeriodEnd
    await standIn.renewSubscription(subscriptionId)
    await standIn.settled()
    current = await state()
    expect(current.subscription.status).toBe('active')
    expect(current.subscription.currentPeriodEnd).toBe(unpaidPeriodEnd)

    const periodBefore = new Date(current.subscription.currentPeriodEnd!).getTime()
    await standIn.renewSubscription(subscriptionId)
    await standIn.settled()
    current = await state()
    expect(new Date(current.subscription.currentPeriodEnd!).getTime()).toBeGreaterThan(periodBefore)
    expect(new Date(current.license.validUntil!).getTime()).toBe(
      new Date(current.subscription.currentPeriodEnd!).getTime() + 7 * 86_400_000,
    )

    await standIn.cancelSubscription(subscriptionId)
    await standIn.settled()
    current = await state()
    expect(current.subscription.status).toBe('canceled')
    expect(current.license.status).toBe('expired')
    const names = (await rows(payload(), 'analytics_events', { user: { equals: buyer.user.id } })).map(
      (event) => event.name,
    )
    expect(names).toEqual(
      expect.arrayContaining([
        'subscription_started',
        'subscription_updated',
        'payment_failed',
        'subscription_canceled',
      ]),
    )
  })
})

describe('customer.subscription.deleted', () => {
  it('alone: the subscription is canceled, its license expires, subscription_canceled', async () => {
    const { buyer, subscriptionId } = await customerSubscribes(payload(), PRICES.proMonthly)
    const canceled = await quietly(() => standIn.cancelSubscription(subscriptionId))
    expect(await deliver(eventOf(canceled, 'customer.subscription.deleted'))).toEqual([200])

    const effects = await effectsFor(payload(), buyer.user.id)
    expect(effects.subscriptions).toMatchObject([{ status: 'canceled', processorSubscriptionId: subscriptionId }])
    expect(effects.subscriptions[0]!.canceledAt).toBeTruthy()
    expect(effects.licenses).toMatchObject([{ status: 'expired' }])
    expect(effects.analytics).toContain('subscription_canceled')
    // Not an update: no subscription_updated for it.
    expect(effects.analytics).not.toContain('subscription_updated')
  })
})

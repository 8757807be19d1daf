import './../support/billing-env'

import type Stripe from 'stripe'
import { beforeAll, describe, expect, it } from 'vitest'

import { billingRuntimeOf } from '../../src/billing/runtime'
import { processEvent } from '../../src/billing/webhook/process'
import { canAccessFeature, hasAccess } from '../../src/licensing/entitlements'
import type { PaymentHistory } from '../../src/payload-types'
import { PRICES, service, standIn } from '../support/billing-env'
import { buy, rows, seedStandInPlans } from '../support/billing'
import { createUser, type TestUser, usePayload } from '../support/payload'

const payload = usePayload()
const WEBHOOK = `${service.url}/api/webhooks/processor`

beforeAll(async () => {
  await seedStandInPlans(payload())
})

const objectOf = <T>(events: Stripe.Event[], type: string): T => {
  const event = events.find((candidate) => candidate.type === type)
  if (!event) throw new Error(`no ${type} among ${events.map((candidate) => candidate.type).join(', ')}`)
  return event.data.object as T
}

const subscribe = async (priceId: string = PRICES.proMonthly) => {
  const buyer = await createUser(payload(), 'customer')
  const { events } = await buy(priceId, { as: buyer })
  await standIn.settled()
  return {
    buyer,
    subscriptionId: objectOf<Stripe.Subscription>(events, 'customer.subscription.created').id,
    charge: objectOf<Stripe.Charge>(events, 'charge.succeeded'),
    invoice: objectOf<Stripe.Invoice>(events, 'invoice.payment_succeeded'),
  }
}

const renew = async (subscriptionId: string) => {
  const events = await standIn.renewSubscription(subscriptionId)
  await standIn.settled()
  return {
    charge: objectOf<Stripe.Charge>(events, 'charge.succeeded'),
    invoice: objectOf<Stripe.Invoice>(events, 'invoice.payment_succeeded'),
  }
}

const stateOf = async (buyer: TestUser) => ({
  subscription: (await rows(payload(), 'user_subscriptions', { user: { equals: buyer.user.id } }))[0]!,
  license: (await rows(payload(), 'licenses', { user: { equals: buyer.user.id } }))[0]!,
  payments: await rows(payload(), 'payment_history', { user: { equals: buyer.user.id } }),
  analytics: (await rows(payload(), 'analytics_events', { user: { equals: buyer.user.id } })).map(
    (event) => event.name,
  ),
})

const paymentFor = (payments: PaymentHistory[], invoice: Stripe.Invoice) =>
  payments.find((payment) => payment.processorPaymentId === invoice.id)

describe('chargebacks on subscription invoices', () => {
  it('a dispute on the latest invoice suspends the license; won, it is restored', async () => {
    const { buyer, subscriptionId } = await subscribe()
    const { charge, invoice } = await renew(subscriptionId)
    const [opened] = await standIn.openDispute(charge.id)
    let state = await stateOf(buyer)
    expect(state.license).toMatchObject({ status: 'suspended' })
    expect(state.subscription).toMatchObject({ status: 'active', disputeStatus: 'open' })
    expect(paymentFor(state.payments, invoice)).toMatchObject({ disputeStatus: 'open', status: 'succeeded' })
    expect(await hasAccess(payload(), buyer.user.id)).toBe(false)

    await standIn.closeDispute((opened!.data.object as Stripe.Dispute).id, 'won')
    state = await stateOf(buyer)
    expect(state.license).toMatchObject({ status: 'active' })
    expect(state.subscription.disputeStatus).toBe('won')
    expect(await hasAccess(payload(), buyer.user.id)).toBe(true)
    expect(state.analytics).toEqual(expect.arrayContaining(['dispute_opened', 'dispute_won']))
  })

  it('a dispute on an older invoice suspends too; lost, the license is revoked and a later renewal does not bring it back', async () => {
    const { buyer, subscriptionId, charge: first, invoice: firstInvoice } = await subscribe()
    await renew(subscriptionId)
    const [opened] = await standIn.openDispute(first.id)
    expect((await stateOf(buyer)).license.status).toBe('suspended')

    await standIn.closeDispute((opened!.data.object as Stripe.Dispute).id, 'lost')
    let state = await stateOf(buyer)
    expect(state.license).toMatchObject({ status: 'revoked', revokedReason: 'dispute_lost' })
    expect(state.subscription.disputeStatus).toBe('lost')
    expect(paymentFor(state.payments, firstInvoice)?.disputeStatus).toBe('lost')
    expect(state.analytics).toEqual(expect.arrayContaining(['dispute_opened', 'dispute_lost', 'license_revoked']))

    await renew(subscriptionId)
    state = await stateOf(buyer)
    expect(state.subscription.status).toBe('active')
    expect(state.license.status).toBe('revoked')
    expect(await hasAccess(payload(), buyer.user.id)).toBe(false)
  })

  it('the dispute events redelivered out of order (closed before opened) still end revoked', async () => {
    const { buyer, charge } = await subscribe()
    standIn.setWebhookUrl(null)
    let events: Stripe.Event[]
    try {
      const opened = await standIn.openDispute(charge.id)
      const closed = await standIn.closeDispute((opened[0]!.data.object as Stripe.Dispute).id, 'lost')
      events = [...closed, ...opened]
    } finally {
      standIn.setWebhookUrl(WEBHOOK)
    }
    for (const event of events) expect((await standIn.redeliver(event.id)).status).toBe(200)
    expect((await stateOf(buyer)).license.status).toBe('revoked')
  })
})

describe('refunds of subscription invoices', () => {
  it('are recorded in payment history and analytics; access follows the subscription, which a cancellation ends', async () => {
    const { buyer, subscriptionId, charge, invoice } = await subscribe()
    await standIn.refund(charge.id, 900)
    let state = await stateOf(buyer)
    expect(paymentFor(state.payments, invoice)).toMatchObject({
      refundedAmount: 900,
      amount: 2900,
      status: 'succeeded',
      paymentType: 'recurring',
    })
    expect(state.analytics).toContain('refund_partial')
    expect(state.subscription.fullyRefunded).toBe(false)
    expect(state.license.status).toBe('active')

    await standIn.refund(charge.id)
    state = await stateOf(buyer)
    expect(paymentFor(state.payments, invoice)?.refundedAmount).toBe(2900)
    expect(state.analytics).toContain('refund_full')
    expect(state.subscription).toMatchObject({ status: 'active', fullyRefunded: true })
    // The subscription is still active at the processor: the license follows it, not the refund.
    expect(state.license.status).toBe('active')
    const refunds = (await rows(payload(), 'analytics_events', { user: { equals: buyer.user.id } })).filter((event) =>
      event.name.startsWith('refund_'),
    )
    expect(refunds.map((event) => (event.properties as { invoiceId?: string }).invoiceId)).toEqual([
      invoice.id,
      invoice.id,
    ])

    await standIn.cancelSubscription(subscriptionId)
    await standIn.settled()
    state = await stateOf(buyer)
    expect(state.subscription.status).toBe('canceled')
    expect(state.license.status).toBe('expired')
  })

  it('a later paid invoice is the latest: the subscription is no longer marked fully refunded', async () => {
    const { buyer, subscriptionId, charge } = await subscribe()
    await standIn.refund(charge.id)
    expect((await stateOf(buyer)).subscription.fullyRefunded).toBe(true)
    await renew(subscriptionId)
    expect((await stateOf(buyer)).subscription.fullyRefunded).toBe(false)
  })
})

describe('one-time purchases', () => {
  it('their refunds and disputes are on their payment history row too', async () => {
    const buyer = await createUser(payload(), 'customer')
    const { events } = await buy(PRICES.ultimate, { as: buyer })
    const charge = objectOf<Stripe.Charge>(events, 'charge.succeeded')
    await standIn.refund(charge.id, 4900)
    await standIn.openDispute(charge.id)
    const [payment] = await rows(payload(), 'payment_history', { user: { equals: buyer.user.id } })
    expect(payment).toMatchObject({ paymentType: 'one_time', refundedAmount: 4900, disputeStatus: 'open' })
    expect((await stateOf(buyer)).license.status).toBe('suspended')
  })
})

describe('concurrent and stale state', () => {
  it('an older read of the subscription committed after a newer one does not roll it back', async () => {
    const { buyer, subscriptionId } = await subscribe()
    const { processor, settings } = billingRuntimeOf(payload()).require()
    standIn.setWebhookUrl(null)
    let release = () => {}
    const gate = new Promise<void>((resolve) => {
      release = resolve
    })
    let markRead = () => {}
    const read = new Promise<void>((resolve) => {
      markRead = resolve
    })
    // The slow instance reads the subscription, then stalls before its transaction.
    const slow = new Proxy(processor, {
      get: (target, property, receiver) =>
        property === 'subscriptions'
          ? {
              retrieve: async (...args: Parameters<Stripe['subscriptions']['retrieve']>) => {
                const subscription = await target.subscriptions.retrieve(...args)
                markRead()
                await gate
                return subscription
              },
            }
          : Reflect.get(target, property, receiver),
    })
    try {
      const [updated] = await standIn.updateSubscription(subscriptionId, { cancelAtPeriodEnd: true })
      const older = processEvent(payload(), slow, updated!, settings)
      await read
      const [deleted] = await standIn.cancelSubscription(subscriptionId)
      expect(await processEvent(payload(), processor, deleted!, settings)).toBe('processed')
      release()
      expect(await older).toBe('processed')
    } finally {
      release()
      standIn.setWebhookUrl(WEBHOOK)
    }
    const state = await stateOf(buyer)
    expect(state.subscription.status).toBe('canceled')
    expect(state.license.status).toBe('expired')
    expect(await hasAccess(payload(), buyer.user.id)).toBe(false)
  })

  it('a staff revoke committed while an event is being applied is not overwritten by it', async () => {
    const buyer = await createUser(payload(), 'customer')
    const { events } = await buy(PRICES.standard, { as: buyer })
    const [opened] = await standIn.openDispute(objectOf<Stripe.Charge>(events, 'charge.succeeded').id)
    const { license } = await stateOf(buyer)
    expect(license.status).toBe('suspended')
    // Support's change, not committed yet: it holds the license row.
    const client = await payload().db.pool.connect()
    try {
      await client.query('BEGIN')
      await client.query(
        `UPDATE licenses SET override = 'revoked', override_reason = 'fraud', status = 'revoked' WHERE id = $1`,
        [license.id],
      )
      // The bank rules for the customer meanwhile; the webhook waits for the row.
      const closing = standIn.closeDispute((opened!.data.object as Stripe.Dispute).id, 'won')
      for (let waited = 0; ; waited += 50) {
        const { rows: waiting } = await client.query(`SELECT 1 FROM pg_locks WHERE NOT granted`)
        if (waiting.length > 0) break
        if (waited > 15_000) throw new Error('the webhook never waited for the license row')
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      await client.query('COMMIT')
      await closing
    } finally {
      await client.query('ROLLBACK').catch(() => undefined)
      client.release()
    }
    expect((await stateOf(buyer)).license).toMatchObject({ override: 'revoked', status: 'revoked' })
    expect(await hasAccess(payload(), buyer.user.id)).toBe(false)
  })

  it("a plan change in the portal moves the license to the new plan's entitlements", async () => {
    const { processor } = billingRuntimeOf(payload()).require()
    const price = await processor.prices.create({
      currency: 'usd',
      unit_amount: 900,
      recurring: { interval: 'month' },
      product_data: { name: 'Lite (monthly)' },
    })
    const lite = await payload().create({
      collection: 'plans',
      data: {
        slug: 'lite',
        name: 'Lite',
        billing: 'recurring',
        monthlyPrice: 9,
        priceIds: { monthly: price.id },
        featureAccess: ['basic', 'templates'],
        buttonText: 'Subscribe',
        order: 4,
      },
    })
    const { buyer, subscriptionId } = await subscribe()
    const pro = (await payload().find({ collection: 'plans', where: { slug: { equals: 'pro' } } })).docs[0]!
    expect((await stateOf(buyer)).license.plan).toBe(pro.id)
    expect(await canAccessFeature(payload(), buyer.user.id, 'analytics')).toBe(true)

    await standIn.updateSubscription(subscriptionId, { priceId: price.id })
    await standIn.settled()
    const state = await stateOf(buyer)
    expect(state.subscription).toMatchObject({ plan: lite.id, processorPriceId: price.id })
    expect(state.license).toMatchObject({ plan: lite.id, status: 'active' })
    expect(await canAccessFeature(payload(), buyer.user.id, 'analytics')).toBe(false)
    expect(await canAccessFeature(payload(), buyer.user.id, 'templates')).toBe(true)
    expect(state.analytics).toContain('plan_changed')
    // Access the old plan gave is re-checked (repository access is kept only if another license grants it).
    const withdrawals = (
      await payload().find({
        collection: 'payload-jobs',
        where: { taskSlug: { equals: 'withdrawRepoAccess' } },
        limit: 1000,
      })
    ).docs
    expect(withdrawals.some((job) => (job.input as { userId?: number }).userId === buyer.user.id)).toBe(true)
  })
})

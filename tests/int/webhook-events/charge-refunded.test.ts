/** src/billing/webhook/events/charge-refunded.ts: charge.refunded. */
import '../../support/billing-env'

import { describe, expect, it } from 'vitest'

import { PRICES, standIn } from '../../support/billing-env'
import { rows } from '../../support/billing'
import {
  analyticsNamed,
  customerBuys,
  deliver,
  effectsFor,
  eventOf,
  objectOf,
  payQuietly,
  quietly,
  uniqueEmail,
  usePayloadWithPlans,
} from '../../support/webhook'

const payload = usePayloadWithPlans()

describe('charge.refunded on a one-time purchase', () => {
  it('a partial refund is recorded, a full one revokes', async () => {
    const { buyer, events } = await customerBuys(payload(), PRICES.ultimate)
    const charge = objectOf(events, 'charge.succeeded')
    await standIn.refund(charge.id, 4900)
    let [purchase] = await rows(payload(), 'one_time_purchases', { user: { equals: buyer.user.id } })
    let [license] = await rows(payload(), 'licenses', { user: { equals: buyer.user.id } })
    expect(purchase).toMatchObject({ refundedAmount: 4900, status: 'succeeded' })
    expect(license?.status).toBe('active')
    expect((await effectsFor(payload(), buyer.user.id)).payments).toMatchObject([
      { paymentType: 'one_time', refundedAmount: 4900, status: 'succeeded' },
    ])
    expect(await analyticsNamed(payload(), buyer.user.id, 'refund_partial')).toMatchObject([
      { sourceEventId: `${charge.id}:4900`, properties: { amountRefunded: 4900, amount: 29900 } },
    ])

    await standIn.refund(charge.id)
    ;[purchase] = await rows(payload(), 'one_time_purchases', { user: { equals: buyer.user.id } })
    ;[license] = await rows(payload(), 'licenses', { user: { equals: buyer.user.id } })
    expect(purchase).toMatchObject({ refundedAmount: 29900 })
    expect(purchase?.revokedAt).toBeTruthy()
    expect(license).toMatchObject({ status: 'revoked', revokedReason: 'refunded' })
    expect((await effectsFor(payload(), buyer.user.id)).payments).toMatchObject([{ refundedAmount: 29900 }])
    const names = (await rows(payload(), 'analytics_events', { user: { equals: buyer.user.id } })).map(
      (event) => event.name,
    )
    expect(names).toEqual(expect.arrayContaining(['refund_partial', 'refund_full', 'license_revoked']))
  })

  it('a refund that arrives before the purchase still ends revoked, not active', async () => {
    const email = uniqueEmail('refund-first')
    const paid = await payQuietly(PRICES.standard, email)
    const paymentIntent = objectOf(paid, 'payment_intent.succeeded')
    const refund = await quietly(() => standIn.refund(paymentIntent.id))
    for (const event of [...refund, ...paid]) expect((await standIn.redeliver(event.id)).status).toBe(200)
    const effects = await effectsFor(payload(), email)
    expect(effects.purchases).toMatchObject([{ status: 'succeeded', refundedAmount: 14900 }])
    expect(effects.licenses).toMatchObject([{ status: 'revoked', revokedReason: 'refunded' }])
  })
})

describe('charge.refunded on a subscription invoice', () => {
  it("alone: on the refunded renewal's payment row only, named with its invoice and subscription", async () => {
    const { buyer, events } = await customerBuys(payload(), PRICES.proMonthly)
    const subscriptionId = objectOf(events, 'customer.subscription.created').id
    const renewal = await standIn.renewSubscription(subscriptionId)
    await standIn.settled()
    const invoice = objectOf(renewal, 'invoice.payment_succeeded')
    const refunded = await quietly(() => standIn.refund(objectOf(renewal, 'charge.succeeded').id, 1000))
    expect(await deliver(eventOf(refunded, 'charge.refunded'))).toEqual([200])

    const effects = await effectsFor(payload(), buyer.user.id)
    const refundedOf = (invoiceId: string | undefined) =>
      effects.payments.find((payment) => payment.processorPaymentId === invoiceId)?.refundedAmount
    expect(refundedOf(invoice.id)).toBe(1000)
    expect(refundedOf(objectOf(events, 'invoice.payment_succeeded').id)).toBe(0)
    expect(effects.subscriptions).toMatchObject([{ status: 'active', fullyRefunded: false }])
    expect(effects.licenses).toMatchObject([{ status: 'active' }])
    expect(await analyticsNamed(payload(), buyer.user.id, 'refund_partial')).toMatchObject([
      { properties: { amountRefunded: 1000, amount: 2900, invoiceId: invoice.id, subscriptionId } },
    ])
  })
})

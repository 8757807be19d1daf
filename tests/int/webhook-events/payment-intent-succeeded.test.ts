/** src/billing/webhook/events/payment-intent-succeeded.ts: payment_intent.succeeded. */
import '../../support/billing-env'

import { describe, expect, it } from 'vitest'

import { PRICES } from '../../support/billing-env'
import {
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

describe('payment_intent.succeeded', () => {
  it('alone: the purchase, its license and one one-time payment row with the receipt; the checkout event later adds its session, nothing twice', async () => {
    const email = uniqueEmail('pi-alone')
    const events = await payQuietly(PRICES.standard, email)
    const succeeded = eventOf(events, 'payment_intent.succeeded')
    const charge = objectOf(events, 'charge.succeeded')
    expect(await deliver(succeeded)).toEqual([200])

    let effects = await effectsFor(payload(), email)
    expect(effects.purchases).toMatchObject([
      {
        status: 'succeeded',
        amount: 14900,
        currency: 'usd',
        processorPaymentIntentId: succeeded.data.object.id,
        processorChargeId: charge.id,
        processorCheckoutSessionId: null,
      },
    ])
    expect(effects.licenses).toMatchObject([
      { status: 'active', user: null, oneTimePurchase: effects.purchases[0]!.id },
    ])
    expect(effects.payments).toMatchObject([
      {
        processorPaymentId: succeeded.data.object.id,
        paymentType: 'one_time',
        status: 'succeeded',
        amount: 14900,
        currency: 'usd',
        invoiceUrl: charge.receipt_url ?? null,
        refundedAmount: 0,
        disputeStatus: 'none',
      },
    ])
    expect(effects.payments[0]!.paidAt).toBe(new Date(succeeded.data.object.created * 1000).toISOString())
    expect(effects.analytics).toEqual(['license_granted', 'payment_succeeded', 'purchase_completed'])

    const completed = eventOf(events, 'checkout.session.completed')
    expect(await deliver(completed)).toEqual([200])
    effects = await effectsFor(payload(), email)
    expect(effects.purchases).toMatchObject([{ processorCheckoutSessionId: completed.data.object.id }])
    expect(effects.licenses).toHaveLength(1)
    expect(effects.payments).toHaveLength(1)
    expect(effects.analytics).toEqual(['license_granted', 'payment_succeeded', 'purchase_completed'])
  })

  it("a subscription's payment intent is left to its invoice: processed, nothing written", async () => {
    const { buyer, events } = await customerBuys(payload(), PRICES.proMonthly, { quiet: true })
    const succeeded = eventOf(events, 'payment_intent.succeeded')
    expect(succeeded.data.object.metadata?.price_id).toBeUndefined()
    expect(await deliver(succeeded)).toEqual([200])
    expect(await eventRow(payload(), succeeded)).toMatchObject({ status: 'processed' })
    expect(await effectsFor(payload(), buyer.user.id)).toEqual({
      purchases: [],
      subscriptions: [],
      licenses: [],
      payments: [],
      analytics: [],
    })
  })
})

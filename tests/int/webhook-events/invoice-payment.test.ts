/** src/billing/webhook/events/invoice-payment.ts: invoice.payment_succeeded, invoice.payment_failed. */
import '../../support/billing-env'

import { describe, expect, it } from 'vitest'

import { PRICES, standIn } from '../../support/billing-env'
import {
  analyticsNamed,
  customerSubscribes,
  deliver,
  effectsFor,
  eventOf,
  quietly,
  usePayloadWithPlans,
} from '../../support/webhook'

const payload = usePayloadWithPlans()

const paymentOf = async (userId: number, invoiceId: string | undefined) =>
  (await effectsFor(payload(), userId)).payments.filter((payment) => payment.processorPaymentId === invoiceId)

describe('invoice.payment_succeeded', () => {
  it('alone, for a renewal: a recurring payment row tied to the subscription, with amount, paid date and invoice URL; the period moves on', async () => {
    const { buyer, subscriptionId } = await customerSubscribes(payload(), PRICES.proMonthly)
    const before = (await effectsFor(payload(), buyer.user.id)).subscriptions[0]!
    const renewal = await quietly(() => standIn.renewSubscription(subscriptionId))
    const paid = eventOf(renewal, 'invoice.payment_succeeded')
    expect(await deliver(paid)).toEqual([200])

    const effects = await effectsFor(payload(), buyer.user.id)
    expect(effects.payments).toHaveLength(2)
    const [payment] = await paymentOf(buyer.user.id, paid.data.object.id)
    expect(payment).toMatchObject({
      amount: 2900,
      currency: 'usd',
      paymentType: 'recurring',
      status: 'succeeded',
      subscription: before.id,
      refundedAmount: 0,
      disputeStatus: 'none',
    })
    expect(payment!.invoiceUrl).toBeTruthy()
    expect(payment!.paidAt).toBeTruthy()
    const [subscription] = effects.subscriptions
    expect(new Date(subscription!.currentPeriodEnd!).getTime()).toBeGreaterThan(
      new Date(before.currentPeriodEnd!).getTime(),
    )
    const succeeded = await analyticsNamed(payload(), buyer.user.id, 'payment_succeeded')
    expect(succeeded.map((event) => event.sourceEventId)).toContain(paid.data.object.id)
    expect(succeeded).toHaveLength(2)
  })
})

describe('invoice.payment_failed', () => {
  it('alone: a failed row for the amount due with no paid date; the subscription is past due and keeps its access', async () => {
    const { buyer, subscriptionId } = await customerSubscribes(payload(), PRICES.proMonthly)
    const failure = await quietly(() => standIn.failInvoicePayment(subscriptionId))
    const failed = eventOf(failure, 'invoice.payment_failed')
    expect(await deliver(failed)).toEqual([200])

    expect(await paymentOf(buyer.user.id, failed.data.object.id)).toMatchObject([
      { status: 'failed', amount: failed.data.object.amount_due, paymentType: 'recurring', paidAt: null },
    ])
    const effects = await effectsFor(payload(), buyer.user.id)
    expect(effects.subscriptions).toMatchObject([{ status: 'past_due' }])
    expect(effects.licenses).toMatchObject([{ status: 'active' }])
    expect(await analyticsNamed(payload(), buyer.user.id, 'payment_failed')).toMatchObject([
      {
        sourceEventId: failed.id,
        properties: { invoiceId: failed.data.object.id, attempt: failed.data.object.attempt_count },
      },
    ])
  })

  it('delivered after the payment that followed it, the failure leaves the invoice paid and the subscription active', async () => {
    const { buyer, subscriptionId } = await customerSubscribes(payload(), PRICES.proMonthly)
    const { failure, renewal } = await quietly(async () => ({
      failure: await standIn.failInvoicePayment(subscriptionId),
      renewal: await standIn.renewSubscription(subscriptionId),
    }))
    const failed = eventOf(failure, 'invoice.payment_failed')
    const paid = eventOf(renewal, 'invoice.payment_succeeded')
    // The renewal paid the invoice that had failed.
    expect(paid.data.object.id).toBe(failed.data.object.id)

    expect(await deliver(paid, failed)).toEqual([200, 200])
    const [payment] = await paymentOf(buyer.user.id, paid.data.object.id)
    expect(payment).toMatchObject({ status: 'succeeded', amount: 2900 })
    expect(payment!.paidAt).toBeTruthy()
    expect((await effectsFor(payload(), buyer.user.id)).subscriptions).toMatchObject([{ status: 'active' }])
  })
})

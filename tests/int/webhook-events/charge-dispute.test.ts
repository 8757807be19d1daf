/** src/billing/webhook/events/charge-dispute.ts: charge.dispute.created, charge.dispute.closed. */
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
  quietly,
  usePayloadWithPlans,
} from '../../support/webhook'

const payload = usePayloadWithPlans()

describe('charge.dispute.created and charge.dispute.closed', () => {
  it('disputes: opened suspends, won restores, lost revokes', async () => {
    const { buyer: winner, events } = await customerBuys(payload(), PRICES.standard)
    const charge = objectOf(events, 'charge.succeeded')
    const opened = await standIn.openDispute(charge.id)
    const licenseStatus = async (userId: number) =>
      (await rows(payload(), 'licenses', { user: { equals: userId } }))[0]?.status
    expect(await licenseStatus(winner.user.id)).toBe('suspended')
    await standIn.closeDispute(objectOf(opened, 'charge.dispute.created').id, 'won')
    expect(await licenseStatus(winner.user.id)).toBe('active')

    const { buyer: loser, ...second } = await customerBuys(payload(), PRICES.standard)
    const lostCharge = objectOf(second.events, 'charge.succeeded')
    const dispute = await standIn.openDispute(lostCharge.id)
    await standIn.closeDispute(objectOf(dispute, 'charge.dispute.created').id, 'lost')
    expect(await licenseStatus(loser.user.id)).toBe('revoked')
  })

  it('created alone: the purchase and its payment row are disputed, the license suspended, dispute_opened named with the dispute', async () => {
    const { buyer, events } = await customerBuys(payload(), PRICES.standard)
    const opened = await quietly(() => standIn.openDispute(objectOf(events, 'charge.succeeded').id))
    const created = eventOf(opened, 'charge.dispute.created')
    expect(await deliver(created)).toEqual([200])

    const effects = await effectsFor(payload(), buyer.user.id)
    expect(effects.purchases).toMatchObject([{ disputeStatus: 'open', status: 'succeeded' }])
    expect(effects.payments).toMatchObject([{ disputeStatus: 'open' }])
    expect(effects.licenses).toMatchObject([{ status: 'suspended' }])
    expect(await analyticsNamed(payload(), buyer.user.id, 'dispute_opened')).toMatchObject([
      {
        sourceEventId: created.data.object.id,
        properties: { disputeId: created.data.object.id, amount: created.data.object.amount },
      },
    ])
  })

  it('closed delivered before created: both read the dispute as it is now (won); the license stays active', async () => {
    const { buyer, events } = await customerBuys(payload(), PRICES.standard)
    const { opened, closed } = await quietly(async () => {
      const opened = await standIn.openDispute(objectOf(events, 'charge.succeeded').id)
      return { opened, closed: await standIn.closeDispute(objectOf(opened, 'charge.dispute.created').id, 'won') }
    })
    expect(await deliver(eventOf(closed, 'charge.dispute.closed'), eventOf(opened, 'charge.dispute.created'))).toEqual([
      200, 200,
    ])

    const effects = await effectsFor(payload(), buyer.user.id)
    expect(effects.purchases).toMatchObject([{ disputeStatus: 'won' }])
    expect(effects.payments).toMatchObject([{ disputeStatus: 'won' }])
    expect(effects.licenses).toMatchObject([{ status: 'active' }])
    expect(effects.analytics.filter((name) => name.startsWith('dispute_'))).toEqual(['dispute_won'])
  })
})

import './../support/billing-env'

import { createLocalReq } from 'payload'
import { beforeAll, describe, expect, it } from 'vitest'

import { canAccessFeature, featureAccess, hasAccess, requireFeature } from '../../src/licensing/entitlements'
import type { FeatureKey } from '../../src/plans/features'
import { PRICES, standIn } from '../support/billing-env'
import { buy, rows, seedStandInPlans } from '../support/billing'
import { api, createUser, type TestUser, usePayload } from '../support/payload'

const payload = usePayload()

beforeAll(async () => {
  await seedStandInPlans(payload())
})

const ALL_KEYS: FeatureKey[] = ['basic', 'templates', 'support', 'api', 'analytics', 'custom_domain', 'advanced']
const grantedKeys = async (userId: number) => {
  const granted: FeatureKey[] = []
  for (const key of ALL_KEYS) if (await canAccessFeature(payload(), userId, key)) granted.push(key)
  return granted
}
const licenseOf = async (user: TestUser) => (await rows(payload(), 'licenses', { user: { equals: user.user.id } }))[0]!

describe('entitlement helpers for every plan and status', () => {
  it("no license: the free plan's keys only, no paid access", async () => {
    const nobody = await createUser(payload(), 'customer')
    expect(await hasAccess(payload(), nobody.user.id)).toBe(false)
    expect(await grantedKeys(nobody.user.id)).toEqual(['basic'])
    await expect(requireFeature(payload(), nobody.user.id, 'templates')).rejects.toMatchObject({
      status: 403,
      code: 'feature_required',
    })
    expect(await hasAccess(payload(), null)).toBe(false)
    expect(await canAccessFeature(payload(), null, 'basic')).toBe(false)
  })

  it.each([
    ['standard', PRICES.standard, ['basic', 'templates', 'support']],
    ['ultimate', PRICES.ultimate, ['basic', 'templates', 'support', 'api', 'advanced']],
    ['pro', PRICES.proMonthly, ALL_KEYS],
  ] as const)("%s: its plan's keys", async (_plan, priceId, keys) => {
    const buyer = await createUser(payload(), 'customer')
    await buy(priceId, { as: buyer })
    expect(await hasAccess(payload(), buyer.user.id)).toBe(true)
    expect(await grantedKeys(buyer.user.id)).toEqual(keys)
    await expect(requireFeature(payload(), buyer.user.id, keys[keys.length - 1]!)).resolves.toBeUndefined()
  })

  it('several licenses give the best of them', async () => {
    const buyer = await createUser(payload(), 'customer')
    await buy(PRICES.standard, { as: buyer })
    await buy(PRICES.ultimate, { as: buyer })
    expect(await grantedKeys(buyer.user.id)).toEqual(['basic', 'templates', 'support', 'api', 'advanced'])
  })

  it('revoked, suspended and expired licenses grant nothing; past due within grace still does', async () => {
    const refunded = await createUser(payload(), 'customer')
    const { events } = await buy(PRICES.ultimate, { as: refunded })
    await standIn.refund(events.find((event) => event.type === 'charge.succeeded')!.data.object.id)
    expect((await licenseOf(refunded)).status).toBe('revoked')
    expect(await hasAccess(payload(), refunded.user.id)).toBe(false)
    expect(await grantedKeys(refunded.user.id)).toEqual(['basic'])

    const disputed = await createUser(payload(), 'customer')
    const disputedBuy = await buy(PRICES.standard, { as: disputed })
    await standIn.openDispute(disputedBuy.events.find((event) => event.type === 'charge.succeeded')!.data.object.id)
    expect((await licenseOf(disputed)).status).toBe('suspended')
    expect(await hasAccess(payload(), disputed.user.id)).toBe(false)

    const lapsed = await createUser(payload(), 'customer')
    const subscription = await buy(PRICES.proMonthly, { as: lapsed })
    const subscriptionId = subscription.events.find((event) => event.type === 'customer.subscription.created')!.data
      .object.id
    await standIn.failInvoicePayment(subscriptionId)
    await standIn.settled()
    expect(await hasAccess(payload(), lapsed.user.id)).toBe(true)
    // past the grace period the license no longer counts, even before any further event
    await payload().update({
      collection: 'licenses',
      id: (await licenseOf(lapsed)).id,
      data: { validUntil: new Date(Date.now() - 1000).toISOString() },
    })
    expect(await hasAccess(payload(), lapsed.user.id)).toBe(false)
    await standIn.cancelSubscription(subscriptionId)
    await standIn.settled()
    expect((await licenseOf(lapsed)).status).toBe('expired')
    expect(await hasAccess(payload(), lapsed.user.id)).toBe(false)
  })

  it('the access factory gates on a feature key, per user', async () => {
    const buyer = await createUser(payload(), 'customer')
    await buy(PRICES.standard, { as: buyer })
    const check = async (user: TestUser | null, key: FeatureKey) => {
      const req = await createLocalReq({ user: user ? { ...user.user, collection: 'users' } : undefined }, payload())
      return featureAccess(key)({ req })
    }
    expect(await check(buyer, 'templates')).toBe(true)
    expect(await check(buyer, 'api')).toBe(false)
    expect(await check(null, 'basic')).toBe(false)
  })
})

describe('support revokes and restores by hand', () => {
  it('needs a reason, records who and why in the audit log, and the status follows', async () => {
    const buyer = await createUser(payload(), 'customer')
    await buy(PRICES.standard, { as: buyer })
    const license = await licenseOf(buyer)
    const support = await createUser(payload(), 'support')

    const noReason = await api('PATCH', `/licenses/${license.id}`, { as: support, body: { override: 'revoked' } })
    expect(noReason.status).toBe(400)
    expect((await licenseOf(buyer)).status).toBe('active')

    const revoke = await api('PATCH', `/licenses/${license.id}`, {
      as: support,
      body: { override: 'revoked', overrideReason: 'chargeback by phone' },
    })
    expect(revoke.status).toBe(200)
    let current = await licenseOf(buyer)
    expect(current).toMatchObject({
      status: 'revoked',
      revokedBy: support.user.id,
      revokedReason: 'chargeback by phone',
    })
    expect(await hasAccess(payload(), buyer.user.id)).toBe(false)

    const restore = await api('PATCH', `/licenses/${license.id}`, {
      as: support,
      body: { override: 'active', overrideReason: 'resolved with the customer' },
    })
    expect(restore.status).toBe(200)
    current = await licenseOf(buyer)
    expect(current).toMatchObject({ status: 'active', revokedBy: null, revokedReason: null })

    const clear = await api('PATCH', `/licenses/${license.id}`, {
      as: support,
      body: { override: 'none', overrideReason: 'back to automatic' },
    })
    expect(clear.status).toBe(200)
    expect((await licenseOf(buyer)).status).toBe('active')

    const log = await rows(payload(), 'audit_log', { targetId: { equals: String(license.id) } })
    expect(log.map((entry) => [entry.action, entry.actor, entry.reason])).toEqual([
      ['license.revoke', support.user.id, 'chargeback by phone'],
      ['license.restore', support.user.id, 'resolved with the customer'],
      ['license.override_cleared', support.user.id, 'back to automatic'],
    ])
    const names = (await rows(payload(), 'analytics_events', { user: { equals: buyer.user.id } })).map(
      (event) => event.name,
    )
    expect(names).toEqual(expect.arrayContaining(['license_revoked', 'license_restored']))
  })

  it('support cannot change anything else on a license; a processor event does not undo a staff revoke', async () => {
    const buyer = await createUser(payload(), 'customer')
    const { events } = await buy(PRICES.standard, { as: buyer })
    const license = await licenseOf(buyer)
    const support = await createUser(payload(), 'support')
    const other = await createUser(payload(), 'customer')
    await api('PATCH', `/licenses/${license.id}`, {
      as: support,
      body: { user: other.user.id, status: 'active', key: 'KIT-HACKED', downloadCount: 99 },
    })
    const unchanged = await licenseOf(buyer)
    expect(unchanged).toMatchObject({ user: buyer.user.id, key: license.key, downloadCount: 0 })

    await api('PATCH', `/licenses/${license.id}`, {
      as: support,
      body: { override: 'revoked', overrideReason: 'fraud' },
    })
    const completed = events.find((event) => event.type === 'payment_intent.succeeded')!
    await standIn.redeliver(completed.id)
    expect((await licenseOf(buyer)).status).toBe('revoked')
  })

  it("an admin cannot empty a license's seat count: a license always covers its buyer", async () => {
    const buyer = await createUser(payload(), 'customer')
    await buy(PRICES.standard, { as: buyer })
    const license = await licenseOf(buyer)
    const admin = await createUser(payload(), 'admin')
    const emptied = await api('PATCH', `/licenses/${license.id}`, { as: admin, body: { seats: null } })
    expect(emptied.status).toBe(400)
    expect((await licenseOf(buyer)).seats).toBe(1)
  })

  it("customers cannot revoke, restore, or see other customers' licenses", async () => {
    const buyer = await createUser(payload(), 'customer')
    await buy(PRICES.standard, { as: buyer })
    const license = await licenseOf(buyer)
    const self = await api('PATCH', `/licenses/${license.id}`, {
      as: buyer,
      body: { override: 'active', overrideReason: 'please' },
    })
    expect(self.status).toBe(403)
    const stranger = await createUser(payload(), 'customer')
    expect((await api('GET', `/licenses/${license.id}`, { as: stranger })).status).toBe(404)
    expect((await api('GET', '/licenses', { as: stranger })).body.docs).toEqual([])
    expect((await api('GET', '/licenses', { as: buyer })).body.docs.map((doc: { id: number }) => doc.id)).toEqual([
      license.id,
    ])
    expect((await api('GET', '/audit_log', { as: buyer })).status).toBe(403)
  })
})

describe('billing rows: customers read their own, support reads, nobody writes through the API', () => {
  it.each(['one_time_purchases', 'payment_history', 'analytics_events', 'user_subscriptions'] as const)(
    '%s',
    async (collection) => {
      const buyer = await createUser(payload(), 'customer')
      await buy(collection === 'user_subscriptions' ? PRICES.proMonthly : PRICES.standard, { as: buyer })
      const stranger = await createUser(payload(), 'customer')
      const support = await createUser(payload(), 'support')
      const own = await api('GET', `/${collection}?limit=100`, { as: buyer })
      expect(own.body.docs.length).toBeGreaterThan(0)
      expect(
        own.body.docs.every(
          (doc: { user: { id: number } | number }) =>
            (typeof doc.user === 'object' ? doc.user.id : doc.user) === buyer.user.id,
        ),
      ).toBe(true)
      expect((await api('GET', `/${collection}?limit=100`, { as: stranger })).body.docs).toEqual([])
      expect((await api('GET', `/${collection}?limit=100`, { as: support })).body.docs.length).toBeGreaterThan(0)
      expect((await api('GET', `/${collection}`)).status).toBe(403)
      const id = own.body.docs[0].id
      for (const user of [buyer, support]) {
        expect(
          (await api('PATCH', `/${collection}/${id}`, { as: user, body: { user: stranger.user.id } })).status,
        ).toBe(403)
        expect((await api('DELETE', `/${collection}/${id}`, { as: user })).status).toBe(403)
        expect((await api('POST', `/${collection}`, { as: user, body: { user: user.user.id } })).status).toBe(403)
      }
    },
  )

  it('processor events are readable by staff only', async () => {
    const buyer = await createUser(payload(), 'customer')
    const support = await createUser(payload(), 'support')
    expect((await api('GET', '/processor_events', { as: buyer })).status).toBe(403)
    expect((await api('GET', '/processor_events', { as: support })).status).toBe(200)
    expect((await api('GET', '/payload-jobs', { as: buyer })).status).toBe(403)
    expect((await api('GET', '/payload-jobs/run', { as: buyer })).status).toBe(401)
  })
})

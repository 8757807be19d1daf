import { describe, expect, it } from 'vitest'

import { prepareDatabase } from '../../src/db/bootstrap'
import { onPagesExpired } from '../../src/cache/pages'
import { PLANS_TAG } from '../../src/plans/revalidate'
import { seedPlans } from '../../src/plans/seed'
import type { Plan } from '../../src/payload-types'
import { api, createUser, usePayload } from '../support/payload'

const payload = usePayload()

const NO_PRICES = { standardLifetime: null, ultimateLifetime: null, proMonthly: null, proYearly: null }
const PRICES = {
  standardLifetime: 'price_standard_1',
  ultimateLifetime: 'price_ultimate_1',
  proMonthly: null,
  proYearly: null,
}

const planBySlug = async (slug: string): Promise<Plan | undefined> =>
  (await payload().find({ collection: 'plans', where: { slug: { equals: slug } }, limit: 1 })).docs[0]

const newPlan = (slug: string, priceIds: { monthly?: string | null; yearly?: string | null }) => ({
  slug,
  name: slug,
  billing: 'recurring' as const,
  monthlyPrice: 10,
  yearlyPrice: 100,
  priceIds,
  featureAccess: ['basic' as const],
  buttonText: 'Buy',
  order: 9,
})

describe('seeding', () => {
  it('creates free, standard and ultimate with the spec feature keys, then changes nothing on a rerun', async () => {
    const first = await seedPlans(payload(), PRICES)
    expect(first.created).toEqual(['free', 'standard', 'ultimate'])

    const second = await seedPlans(payload(), PRICES)
    expect(second).toEqual({ created: [], updatedPriceIds: [], unchanged: ['free', 'standard', 'ultimate'] })
    const all = await payload().find({ collection: 'plans', limit: 100, sort: 'order' })
    expect(all.docs.map((plan) => [plan.slug, plan.featureAccess])).toEqual([
      ['free', ['basic']],
      ['standard', ['basic', 'templates', 'support']],
      ['ultimate', ['basic', 'templates', 'support', 'api', 'advanced']],
    ])
    const standard = await planBySlug('standard')
    expect(standard?.priceIds).toEqual({ monthly: 'price_standard_1', yearly: null })
    expect(standard?.allowPromotionCodes).toBe(true)
    expect((await planBySlug('free'))?.isFree).toBe(true)
  })

  it('keeps staff edits and takes new price IDs from configuration', async () => {
    const standard = await planBySlug('standard')
    await payload().update({
      collection: 'plans',
      id: standard!.id,
      data: { name: 'Standard (edited)', monthlyPrice: 99 },
    })

    const result = await seedPlans(payload(), { ...PRICES, standardLifetime: 'price_standard_live' })
    expect(result.updatedPriceIds).toEqual(['standard'])
    const after = await planBySlug('standard')
    expect(after?.name).toBe('Standard (edited)')
    expect(after?.monthlyPrice).toBe(99)
    expect(after?.priceIds?.monthly).toBe('price_standard_live')

    // Unset configuration never erases a price ID that is there.
    const unset = await seedPlans(payload(), NO_PRICES)
    expect(unset.updatedPriceIds).toEqual([])
    expect((await planBySlug('standard'))?.priceIds?.monthly).toBe('price_standard_live')
  })

  it('adds the recurring pro plan only when its price IDs are configured', async () => {
    expect(await planBySlug('pro')).toBeUndefined()
    const result = await seedPlans(payload(), {
      ...PRICES,
      standardLifetime: 'price_standard_live',
      proMonthly: 'price_pro_m',
      proYearly: 'price_pro_y',
    })
    expect(result.created).toEqual(['pro'])
    const pro = await planBySlug('pro')
    expect(pro?.billing).toBe('recurring')
    expect(pro?.priceIds).toEqual({ monthly: 'price_pro_m', yearly: 'price_pro_y' })
  })

  it('two instances starting at once (migrate + seed under the lock) both succeed with one row per plan', async () => {
    await payload().delete({ collection: 'plans', where: { id: { exists: true } } })
    const results = await Promise.all([
      prepareDatabase(payload(), { priceIds: PRICES }),
      prepareDatabase(payload(), { priceIds: PRICES }),
    ])
    expect(results.map((result) => result.seeded?.created.length).sort()).toEqual([0, 3])
    const slugs = (await payload().find({ collection: 'plans', limit: 100 })).docs.map((plan) => plan.slug)
    expect(slugs.sort()).toEqual(['free', 'standard', 'ultimate'])
    await seedPlans(payload(), {
      ...PRICES,
      standardLifetime: 'price_standard_live',
      proMonthly: 'price_pro_m',
      proYearly: 'price_pro_y',
    })
  })
})

describe('price ID validation', () => {
  it('refuses a price ID without the price_ prefix', async () => {
    const admin = await createUser(payload(), 'admin')
    const response = await api('POST', '/plans', { as: admin, body: newPlan('bad', { monthly: 'prod_123' }) })
    expect(response.status).toBe(400)
    expect(JSON.stringify(response.body)).toMatch(/price_/)
    expect(await planBySlug('bad')).toBeUndefined()
  })

  it('refuses a price ID that another plan uses, in either slot', async () => {
    const admin = await createUser(payload(), 'admin')
    const sameSlot = await api('POST', '/plans', { as: admin, body: newPlan('dupe1', { monthly: 'price_ultimate_1' }) })
    expect(sameSlot.status).toBe(400)
    const otherSlot = await api('POST', '/plans', { as: admin, body: newPlan('dupe2', { yearly: 'price_pro_m' }) })
    expect(otherSlot.status).toBe(400)
    expect(otherSlot.body.errors[0].data.errors).toEqual([
      { path: 'priceIds.yearly', message: 'price_pro_m is already used by the plan "pro".' },
    ])
    expect(await planBySlug('dupe1')).toBeUndefined()
    expect(await planBySlug('dupe2')).toBeUndefined()
  })

  it('refuses the same price ID in both slots, a yearly price on a lifetime plan and prices on a free plan', async () => {
    const admin = await createUser(payload(), 'admin')
    const both = await api('POST', '/plans', {
      as: admin,
      body: newPlan('both', { monthly: 'price_x1', yearly: 'price_x1' }),
    })
    expect(both.status).toBe(400)
    const lifetime = await api('POST', '/plans', {
      as: admin,
      body: { ...newPlan('life', { monthly: 'price_x2', yearly: 'price_x3' }), billing: 'lifetime' },
    })
    expect(lifetime.status).toBe(400)
    const free = await api('POST', '/plans', {
      as: admin,
      body: { ...newPlan('gratis', { monthly: 'price_x4' }), isFree: true },
    })
    expect(free.status).toBe(400)
  })

  it('accepts a valid new plan, and an edit that keeps its own price IDs', async () => {
    const admin = await createUser(payload(), 'admin')
    const created = await api('POST', '/plans', {
      as: admin,
      body: newPlan('team', { monthly: 'price_team_m', yearly: 'price_team_y' }),
    })
    expect(created.status).toBe(201)
    const edited = await api('PATCH', `/plans/${created.body.doc.id}`, { as: admin, body: { name: 'Team' } })
    expect(edited.status).toBe(200)
    expect(edited.body.doc.priceIds).toEqual({ monthly: 'price_team_m', yearly: 'price_team_y' })
  })

  it('refuses a feature key outside the seven', async () => {
    const admin = await createUser(payload(), 'admin')
    const response = await api('POST', '/plans', {
      as: admin,
      body: { ...newPlan('keys', { monthly: 'price_keys' }), featureAccess: ['basic', 'everything'] },
    })
    expect(response.status).toBe(400)
  })
})

describe('plan access', () => {
  it('anyone reads active plans; inactive ones only staff', async () => {
    const pro = await planBySlug('pro')
    await payload().update({ collection: 'plans', id: pro!.id, data: { active: false } })
    const anonymous = await api('GET', '/plans?limit=100')
    expect(anonymous.status).toBe(200)
    const slugs = anonymous.body.docs.map((plan: Plan) => plan.slug)
    expect(slugs).toContain('standard')
    expect(slugs).not.toContain('pro')

    const support = await createUser(payload(), 'support')
    const staffView = await api('GET', '/plans?limit=100', { as: support })
    expect(staffView.body.docs.map((plan: Plan) => plan.slug)).toContain('pro')
  })

  it('only admins change plans', async () => {
    const standard = await planBySlug('standard')
    const price = standard!.monthlyPrice
    for (const role of ['customer', 'support'] as const) {
      const user = await createUser(payload(), role)
      const update = await api('PATCH', `/plans/${standard!.id}`, { as: user, body: { monthlyPrice: 1 } })
      expect(update.status).toBe(403)
      const create = await api('POST', '/plans', { as: user, body: newPlan(`by-${role}`, {}) })
      expect(create.status).toBe(403)
      const remove = await api('DELETE', `/plans/${standard!.id}`, { as: user })
      expect(remove.status).toBe(403)
    }
    const anonymous = await api('PATCH', `/plans/${standard!.id}`, { body: { monthlyPrice: 1 } })
    expect(anonymous.status).toBe(403)
    expect((await planBySlug('standard'))?.monthlyPrice).toBe(price)
  })
})

/** How often the host's page cache was told to drop its copies, until `stop`. */
const countPageDrops = () => {
  const drops = { count: 0, stop: () => {} }
  drops.stop = onPagesExpired(() => {
    drops.count += 1
  })
  return drops
}

describe("the pricing table's cached plans", () => {
  it("every change to a plan (created, edited, deleted) expires them through the host's revalidateTag, with the plans tag", async () => {
    const custom = payload().config.custom as { catalog: { revalidate: (tag: string) => void } }
    const original = custom.catalog.revalidate
    const expired: string[] = []
    custom.catalog.revalidate = (tag) => {
      expired.push(tag)
    }
    // The host's page cache (src/server/page-cache.ts) drops its copies on every change too.
    const drops = countPageDrops()
    try {
      const created = await payload().create({
        collection: 'plans',
        data: newPlan('cache-check', { monthly: 'price_cache_m' }),
        overrideAccess: true,
      })
      expect(expired).toEqual([PLANS_TAG])
      await payload().update({ collection: 'plans', id: created.id, data: { active: false }, overrideAccess: true })
      expect(expired).toEqual([PLANS_TAG, PLANS_TAG])
      await payload().delete({ collection: 'plans', id: created.id, overrideAccess: true })
      expect(expired).toEqual([PLANS_TAG, PLANS_TAG, PLANS_TAG])
      expect(drops.count).toBe(3)
    } finally {
      drops.stop()
      custom.catalog.revalidate = original
    }
  })

  it('outside Next (seeding, scripts) the expiry cannot reach a cache: the change is saved, the failure only logged', async () => {
    // payload.config.ts gives Next's revalidateTag, which throws outside Next's request handling.
    const drops = countPageDrops()
    try {
      const edited = await payload().create({
        collection: 'plans',
        data: newPlan('cache-outside', { monthly: 'price_cache_o' }),
        overrideAccess: true,
      })
      expect((await planBySlug('cache-outside'))?.id).toBe(edited.id)
      await payload().delete({ collection: 'plans', id: edited.id, overrideAccess: true })
      // The host's copies are dropped all the same.
      expect(drops.count).toBe(2)
    } finally {
      drops.stop()
    }
  })
})

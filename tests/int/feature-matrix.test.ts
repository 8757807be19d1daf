import { beforeAll, describe, expect, it } from 'vitest'

import { seedPlans } from '../../src/plans/seed'
import {
  grantLicense,
  grantsPaidKey,
  LICENSE_STATES,
  type LicenseState,
  PLAN_SLUGS,
  type PlanSlug,
} from '../support/licenses'
import { api, createUser, graphql, type TestUser, usePayload } from '../support/payload'

/**
 * The keys `api` (personal API keys) and `advanced` (premium posts) for every plan and license state;
 * `templates` and `support` have the same matrix in feature-templates and feature-support.
 */
const payload = usePayload()
const cases = PLAN_SLUGS.flatMap((plan) => LICENSE_STATES.map((state) => [plan, state] as [PlanSlug, LicenseState]))
const owners = new Map<string, TestUser>()

beforeAll(async () => {
  await seedPlans(payload(), {
    standardLifetime: 'price_m_std',
    ultimateLifetime: 'price_m_ult',
    proMonthly: 'price_m_pro',
    proYearly: null,
  })
  for (const [plan, state] of cases) {
    const owner = await createUser(payload(), 'customer')
    await grantLicense(payload(), owner, plan, state)
    owners.set(`${plan}:${state}`, owner)
  }
  const paragraph = {
    type: 'paragraph',
    version: 1,
    direction: null,
    format: '',
    indent: 0,
    textFormat: 0,
    textStyle: '',
    children: [{ type: 'text', version: 1, text: 'Matrix secret.', format: 0, mode: 'normal', style: '', detail: 0 }],
  }
  await payload().create({
    collection: 'posts',
    data: {
      title: 'Matrix',
      slug: 'matrix',
      summary: 'Premium.',
      author: 'Staff',
      requiredFeature: 'advanced',
      _status: 'published',
      body: {
        root: { type: 'root', version: 1, direction: null, format: '', indent: 0, children: [paragraph] },
      } as never,
    },
  })
})

describe('api: creating a personal API key', () => {
  it.each(cases)('%s license, %s', async (plan, state) => {
    const created = await api('POST', '/account/api-keys', {
      as: owners.get(`${plan}:${state}`)!,
      body: { name: 'matrix' },
    })
    if (grantsPaidKey(plan, state, 'api')) {
      expect(created.status).toBe(201)
      expect(created.body.key).toMatch(/^kit_/)
    } else {
      expect(created.status).toBe(403)
      expect(created.body.errors[0].code).toBe('feature_required')
    }
  })
})

describe('advanced: the body of a premium post, over REST and GraphQL', () => {
  it.each(cases)('%s license, %s', async (plan, state) => {
    const owner = owners.get(`${plan}:${state}`)!
    const rest = await api('GET', '/posts?where[slug][equals]=matrix', { as: owner })
    const viaGraphql = await graphql('{ Posts(where: { slug: { equals: "matrix" } }) { docs { body } } }', owner)
    const readable = grantsPaidKey(plan, state, 'advanced')
    expect(JSON.stringify(rest.body.docs[0].body ?? null).includes('Matrix secret.')).toBe(readable)
    expect(JSON.stringify(viaGraphql.data?.Posts?.docs[0]?.body ?? null).includes('Matrix secret.')).toBe(readable)
  })
})

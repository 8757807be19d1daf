import { beforeAll, describe, expect, it } from 'vitest'

import { generateLicenseKey } from '../../src/licensing/keys'
import { seedPlans } from '../../src/plans/seed'
import { api, createUser, graphql, type TestUser, usePayload } from '../support/payload'

const payload = usePayload()

const people: Record<'standard' | 'ultimate' | 'revokedUltimate' | 'free' | 'support', TestUser> = {} as never
let premiumId: number

/** A license of the plan with this slug, in this state, as staff would grant it. */
const grant = async (who: TestUser, plan: string, status: 'active' | 'revoked') => {
  const { docs } = await payload().find({ collection: 'plans', where: { slug: { equals: plan } }, limit: 1 })
  await payload().create({ collection: 'licenses', data: { key: generateLicenseKey(), user: who.user.id, plan: docs[0]!.id, source: 'manual', status } })
}

beforeAll(async () => {
  await seedPlans(payload(), { standardLifetime: 'price_std', ultimateLifetime: 'price_ult', proMonthly: null, proYearly: null })
  ;[people.standard, people.ultimate, people.revokedUltimate, people.free, people.support] = await Promise.all([
    createUser(payload(), 'customer'),
    createUser(payload(), 'customer'),
    createUser(payload(), 'customer'),
    createUser(payload(), 'customer'),
    createUser(payload(), 'support'),
  ])
  await grant(people.standard, 'standard', 'active')
  await grant(people.ultimate, 'ultimate', 'active')
  await grant(people.revokedUltimate, 'ultimate', 'revoked')
  const markdown = { root: { type: 'root', version: 1, direction: null, format: '', indent: 0, children: [{ type: 'paragraph', version: 1, direction: null, format: '', indent: 0, textFormat: 0, textStyle: '', children: [{ type: 'text', version: 1, text: 'The premium secret.', format: 0, mode: 'normal', style: '', detail: 0 }] }] } }
  const created = await payload().create({
    collection: 'posts',
    data: { title: 'Premium deep dive', slug: 'premium-deep-dive', summary: 'For Ultimate customers.', author: 'Staff', requiredFeature: 'advanced', body: markdown as never, _status: 'published' },
  })
  premiumId = created.id
  await payload().create({ collection: 'posts', data: { title: 'Open post', slug: 'open-post', summary: 'For all.', author: 'Staff', body: markdown as never, _status: 'published' } })
})

describe('premium posts (requiredFeature)', () => {
  const restBody = async (who: TestUser | null) => {
    const one = await api('GET', `/posts/${premiumId}`, { as: who })
    const list = await api('GET', '/posts?where[slug][equals]=premium-deep-dive', { as: who })
    expect(one.status).toBe(200)
    expect(one.body.title).toBe('Premium deep dive')
    expect(one.body.summary).toBe('For Ultimate customers.')
    expect(list.body.docs[0].summary).toBe('For Ultimate customers.')
    return [one.body.body, list.body.docs[0].body]
  }
  const graphqlBody = async (who: TestUser | null) => {
    const result = await graphql('{ Posts(where: { slug: { equals: "premium-deep-dive" } }) { docs { title summary body } } }', who)
    expect(result.data?.Posts?.docs[0]?.title).toBe('Premium deep dive')
    return result.data?.Posts?.docs[0]?.body
  }

  it('anonymous readers, the free plan, a standard license and a revoked ultimate license get the title and summary, never the body', async () => {
    for (const who of [null, people.free, people.standard, people.revokedUltimate]) {
      const [one, listed] = await restBody(who)
      expect(one).toBeUndefined()
      expect(listed).toBeUndefined()
      expect(await graphqlBody(who)).toBeNull()
    }
  })

  it('an active ultimate license (advanced) and support staff read the body over REST and GraphQL', async () => {
    for (const who of [people.ultimate, people.support]) {
      const [one, listed] = await restBody(who)
      expect(JSON.stringify(one)).toContain('The premium secret.')
      expect(JSON.stringify(listed)).toContain('The premium secret.')
      expect(JSON.stringify(await graphqlBody(who))).toContain('The premium secret.')
    }
  })

  it('a post without requiredFeature shows its body to everyone', async () => {
    const open = await api('GET', '/posts?where[slug][equals]=open-post', { as: null })
    expect(JSON.stringify(open.body.docs[0].body)).toContain('The premium secret.')
  })

  it('a body cannot be fished out through a where clause on it', async () => {
    const probe = await api('GET', '/posts?where[body][like]=premium', { as: null })
    expect(JSON.stringify(probe.body)).not.toContain('Premium deep dive')
  })
})

import { renderToStaticMarkup } from 'react-dom/server'
import { beforeAll, describe, expect, it, vi } from 'vitest'

import { generateLicenseKey } from '../../src/licensing/keys'
import { lexicalOf } from '../support/field-rules'
import { api, createUser, graphql, type TestUser, usePayload } from '../support/payload'
import { seedPlansWithoutProcessor } from '../support/licenses'

/** The premium page's server action, called as Next would, with the test's signed-in reader. */
const hoisted = vi.hoisted((): { user: { current: unknown } } => ({ user: { current: null } }))
vi.mock('../../src/app/_lib/session', () =>
  import('../support/server-actions').then((m) => m.sessionModule(() => hoisted.user.current)),
)
const { loadPremiumBody } = await import('../../src/app/(frontend)/blog/[slug]/premium')

const payload = usePayload()

const people: Record<'standard' | 'ultimate' | 'revokedUltimate' | 'free' | 'support', TestUser> = {} as never
let premiumId: number
let secondPremiumId: number

/** A license of the plan with this slug, in this state, as staff would grant it. */
const grant = async (who: TestUser, plan: string, status: 'active' | 'revoked') => {
  const { docs } = await payload().find({ collection: 'plans', where: { slug: { equals: plan } }, limit: 1 })
  await payload().create({
    collection: 'licenses',
    data: { key: generateLicenseKey(), user: who.user.id, plan: docs[0]!.id, source: 'manual', status, seats: 1 },
  })
}

beforeAll(async () => {
  await seedPlansWithoutProcessor(payload())
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
  const markdown = lexicalOf('The premium secret.')
  const created = await payload().create({
    collection: 'posts',
    data: {
      title: 'Premium deep dive',
      slug: 'premium-deep-dive',
      summary: 'For Ultimate customers.',
      author: 'Staff',
      requiredFeature: 'advanced',
      body: markdown as never,
      _status: 'published',
    },
  })
  premiumId = created.id
  // A second premium post whose body sorts differently: `sort=body` must not order them by it.
  const other = JSON.parse(JSON.stringify(markdown).replace('The premium secret.', 'Another guarded text.'))
  const second = await payload().create({
    collection: 'posts',
    data: {
      title: 'Premium second',
      slug: 'premium-second',
      summary: 'Also for Ultimate customers.',
      author: 'Staff',
      requiredFeature: 'advanced',
      body: other as never,
      _status: 'published',
    },
  })
  secondPremiumId = second.id
  await payload().create({
    collection: 'posts',
    data: {
      title: 'Open post',
      slug: 'open-post',
      summary: 'For all.',
      author: 'Staff',
      body: markdown as never,
      _status: 'published',
    },
  })
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
    const result = await graphql(
      '{ Posts(where: { slug: { equals: "premium-deep-dive" } }) { docs { title summary body } } }',
      who,
    )
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

/**
 * The leaks a hostile tester found (issue 21): the body's rule reads `requiredFeature` from the post,
 * and a `select` left it out (the rule then allowed), while a `where` or `sort` on the body is checked
 * without any post at all (the rule allowed again). Each attack below returned the body, or told a
 * right guess from a wrong one, before the collection's forceSelect and the no-document refusal.
 */
describe('premium bodies cannot be read around the rule', () => {
  const outsiders = () => [null, people.free, people.standard, people.revokedUltimate] as (TestUser | null)[]
  const secret = 'The premium secret.'
  const noSecret = (body: unknown) => {
    expect(JSON.stringify(body)).not.toContain(secret)
    expect(JSON.stringify(body)).not.toContain('Another guarded text.')
  }

  it('select[body]=true on a list and on one post returns no body (requiredFeature is always loaded)', async () => {
    for (const who of outsiders()) {
      const list = await api('GET', '/posts?where[slug][equals]=premium-deep-dive&select[body]=true', { as: who })
      expect(list.status).toBe(200)
      expect(list.body.totalDocs).toBe(1)
      expect(list.body.docs[0].body).toBeUndefined()
      // forceSelect: what the rule decides on comes back with the selection.
      expect(list.body.docs[0].requiredFeature).toBe('advanced')
      noSecret(list.body)
      const one = await api('GET', `/posts/${premiumId}?select[body]=true`, { as: who })
      expect(one.status).toBe(200)
      expect(one.body.id).toBe(premiumId)
      expect(one.body.body).toBeUndefined()
      noSecret(one.body)
    }
  })

  it('an exclude-mode select leaving out requiredFeature returns no body (Payload does not merge forceSelect into it)', async () => {
    for (const who of outsiders()) {
      const one = await api('GET', `/posts/${premiumId}?select[requiredFeature]=false`, { as: who })
      expect(one.status).toBe(200)
      expect(one.body.title).toBe('Premium deep dive')
      expect(one.body.body).toBeUndefined()
      noSecret(one.body)
      const list = await api('GET', '/posts?where[slug][equals]=premium-deep-dive&select[requiredFeature]=false', {
        as: who,
      })
      expect(list.body.docs[0].body).toBeUndefined()
      noSecret(list.body)
    }
  })

  it('select[body]=true still returns the body to holders, to staff and on an open post', async () => {
    for (const who of [people.ultimate, people.support]) {
      const one = await api('GET', `/posts/${premiumId}?select[body]=true`, { as: who })
      expect(JSON.stringify(one.body.body)).toContain(secret)
    }
    const open = await api('GET', '/posts?where[slug][equals]=open-post&select[body]=true', { as: null })
    expect(JSON.stringify(open.body.docs[0].body)).toContain(secret)
  })

  it('a where on the text inside the body answers the same for a right and a wrong word (REST list, count, GraphQL)', async () => {
    const paths = ['body.root.children.children.text', 'body', 'body.root']
    for (const who of [...outsiders(), people.ultimate]) {
      for (const path of paths) {
        for (const operator of ['like', 'equals', 'contains', 'exists']) {
          const right = operator === 'exists' ? 'true' : operator === 'equals' ? secret : 'premium'
          const wrong = operator === 'exists' ? 'false' : operator === 'equals' ? 'Not the text.' : 'zebra'
          const ask = (value: string) =>
            api(
              'GET',
              `/posts?where[${path}][${operator}]=${encodeURIComponent(value)}&where[requiredFeature][equals]=advanced`,
              { as: who },
            )
          const [yes, no] = [await ask(right), await ask(wrong)]
          expect([path, operator, yes.status, yes.body?.totalDocs]).toEqual([
            path,
            operator,
            no.status,
            no.body?.totalDocs,
          ])
          noSecret(yes.body)
          const count = (value: string) =>
            api('GET', `/posts/count?where[${path}][${operator}]=${encodeURIComponent(value)}`, { as: who })
          const [countYes, countNo] = [await count(right), await count(wrong)]
          expect([path, operator, countYes.status, countYes.body?.totalDocs]).toEqual([
            path,
            operator,
            countNo.status,
            countNo.body?.totalDocs,
          ])
        }
      }
      // Nested in or/and, the same.
      const nested = async (word: string) =>
        api('GET', `/posts?where[or][0][and][0][body.root.children.children.text][like]=${word}`, { as: who })
      const [a, b] = [await nested('premium'), await nested('zebra')]
      expect([a.status, a.body?.totalDocs]).toEqual([b.status, b.body?.totalDocs])
      const gql = async (word: string) =>
        graphql(`{ Posts(where: { body: { like: "${word}" } }) { totalDocs docs { id title } } }`, who)
      const [gqlYes, gqlNo] = [await gql('premium'), await gql('zebra')]
      expect(gqlYes.data?.Posts ?? null).toEqual(gqlNo.data?.Posts ?? null)
    }
  })

  it('sort=body and sort=-body give the same order', async () => {
    for (const who of [...outsiders(), people.ultimate]) {
      const order = async (sort: string) => {
        const response = await api(
          'GET',
          `/posts?where[requiredFeature][equals]=advanced&sort=${sort}&select[title]=true`,
          { as: who },
        )
        return [
          response.status,
          response.status === 200 ? response.body.docs.map((doc: { id: number }) => doc.id) : null,
        ]
      }
      expect(await order('body')).toEqual(await order('-body'))
      expect(await order('body.root.children.children.text')).toEqual(await order('-body.root.children.children.text'))
    }
    // Staff may sort by it (and the two posts do sort differently, so the check above means something).
    const staffOrder = async (sort: string) =>
      (
        await api('GET', `/posts?where[requiredFeature][equals]=advanced&sort=${sort}`, { as: people.support })
      ).body.docs.map((doc: { id: number }) => doc.id)
    expect(await staffOrder('body')).toEqual([...(await staffOrder('-body'))].reverse())
    expect(new Set(await staffOrder('body'))).toEqual(new Set([premiumId, secondPremiumId]))
  })

  it('draft reads, versions and depth give no body', async () => {
    for (const who of outsiders()) {
      const draft = await api('GET', `/posts?draft=true&where[slug][equals]=premium-deep-dive&select[body]=true`, {
        as: who,
      })
      expect(draft.body.docs?.[0]?.body).toBeUndefined()
      noSecret(draft.body)
      const draftOne = await api('GET', `/posts/${premiumId}?draft=true&select[body]=true&depth=2`, { as: who })
      expect(draftOne.body.body).toBeUndefined()
      noSecret(draftOne.body)
      for (const path of [
        `/posts/versions?where[parent][equals]=${premiumId}`,
        `/posts/versions?select[version][body]=true`,
        `/posts/versions?where[version.body.root.children.children.text][like]=premium`,
      ]) {
        const versions = await api('GET', path, { as: who })
        expect(versions.status).toBe(403)
        noSecret(versions.body)
      }
      const gqlVersions = await graphql(
        `{ versionsPosts(where: { parent: { equals: ${premiumId} } }) { docs { version { body } } } }`,
        who,
      )
      noSecret(gqlVersions)
    }
  })

  it('GraphQL by id and list withhold the body too, also when it reads with select', async () => {
    for (const who of outsiders()) {
      // `select: true` makes Payload load only the queried fields, as REST's select does.
      for (const query of [
        `{ Post(id: ${premiumId}, select: true) { body } }`,
        '{ Posts(select: true, where: { slug: { equals: "premium-deep-dive" } }) { docs { body } } }',
      ]) {
        const selected = await graphql(query, who)
        expect(selected.errors).toBeUndefined()
        noSecret(selected)
      }
      const one = await graphql(`{ Post(id: ${premiumId}) { title requiredFeature body } }`, who)
      expect((one.data?.Post as unknown as { title: string })?.title).toBe('Premium deep dive')
      noSecret(one)
      const list = await graphql(
        '{ Posts(where: { requiredFeature: { equals: advanced } }) { docs { id body } } }',
        who,
      )
      noSecret(list)
    }
  })

  it("Payload's permission answers: staff keep the body in /api/access, holders get it for the post, outsiders do not", async () => {
    // Payload's sanitized answer: `{ read: true }` for a readable field, the field left out otherwise.
    const canRead = (fields: Record<string, { read?: unknown }> | undefined) => Boolean(fields?.body?.read)
    const staffAccess = await api('GET', '/access', { as: people.support })
    expect(canRead(staffAccess.body.collections.posts.fields)).toBe(true)
    expect(staffAccess.body.collections.posts.fields.requiredFeature.read).toBe(true)
    for (const who of [null, people.free, people.ultimate]) {
      const general = await api('GET', '/access', { as: who })
      expect(general.status).toBe(200)
      expect(canRead(general.body.collections?.posts?.fields)).toBe(false)
    }
    // The admin's per-document answer (POST /api/posts/access/:id) reads the post: holders and staff yes.
    const docAccess = (who: TestUser | null, path = `/posts/access/${premiumId}`) =>
      api('POST', path, { as: who, body: {} })
    const holder = await docAccess(people.ultimate)
    expect(holder.status).toBe(200)
    expect(canRead(holder.body.fields)).toBe(true)
    expect(canRead((await docAccess(people.support)).body.fields)).toBe(true)
    for (const who of outsiders()) expect(canRead((await docAccess(who)).body.fields)).toBe(false)
    // Without a post (a new one), only staff.
    expect(canRead((await docAccess(people.support, '/posts/access')).body.fields)).toBe(true)
    expect(canRead((await docAccess(people.ultimate, '/posts/access')).body.fields)).toBe(false)
  })

  it("the premium page's server action gives the body to holders and staff only", async () => {
    const read = async (who: TestUser | null, slug = 'premium-deep-dive') => {
      hoisted.user.current = who ? { ...who.user, collection: 'users' } : null
      const node = await loadPremiumBody(slug)
      return node === null ? null : renderToStaticMarkup(node as never)
    }
    for (const who of outsiders()) expect(await read(who)).toBeNull()
    expect(await read(people.ultimate)).toContain(secret)
    expect(await read(people.support)).toContain(secret)
    expect(await read(people.free, 'open-post')).toContain(secret)
    // The same Local API call the action makes, for the record: select only the body, as the free reader.
    const user = { ...people.free.user, collection: 'users' } as never
    const { docs } = await payload().find({
      collection: 'posts',
      where: { slug: { equals: 'premium-deep-dive' } },
      select: { body: true },
      depth: 1,
      limit: 1,
      overrideAccess: false,
      user,
    })
    expect(docs[0]?.body).toBeUndefined()
  })
})

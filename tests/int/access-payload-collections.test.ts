import { Forbidden } from 'payload'
import { collectionDefaults } from 'payload/shared'
import { beforeAll, describe, expect, it } from 'vitest'

import { api, createUser, graphql, type TestUser, usePayload } from '../support/payload'

const payload = usePayload()

/** Payload's "any signed-in user may" defaults: a collection still using one has no explicit rule. */
const DEFAULTS = new Set<unknown>([collectionDefaults.access?.read, collectionDefaults.access?.unlock])

let customer: TestUser
let otherCustomer: TestUser
let support: TestUser
let admin: TestUser

beforeAll(async () => {
  ;[customer, otherCustomer, support, admin] = await Promise.all([
    createUser(payload(), 'customer'),
    createUser(payload(), 'customer'),
    createUser(payload(), 'support'),
    createUser(payload(), 'admin'),
  ])
})

describe('every collection has explicit access', () => {
  it("each collection (ours, the plugins', Payload's own) defines every operation itself", () => {
    const missing: string[] = []
    for (const collection of payload().config.collections) {
      const operations = ['read', 'create', 'update', 'delete']
      if (collection.auth) operations.push('unlock', 'admin')
      if (collection.versions) operations.push('readVersions')
      const access = collection.access as Record<string, unknown>
      for (const operation of operations) {
        if (typeof access[operation] !== 'function' || DEFAULTS.has(access[operation]))
          missing.push(`${collection.slug}.${operation}`)
      }
    }
    for (const global of payload().config.globals) {
      const access = global.access as Record<string, unknown>
      for (const operation of ['read', 'update']) {
        if (typeof access[operation] !== 'function' || DEFAULTS.has(access[operation]))
          missing.push(`global ${global.slug}.${operation}`)
      }
    }
    expect(missing).toEqual([])
  })

  it("the check sees Payload's own collections", () => {
    const slugs = payload().config.collections.map((collection) => collection.slug)
    expect(slugs).toEqual(
      expect.arrayContaining(['payload-jobs', 'payload-migrations', 'payload-locked-documents', 'payload-preferences']),
    )
  })
})

describe('payload-jobs: admins only', () => {
  let jobId: number | string
  beforeAll(async () => {
    jobId = (await payload().jobs.queue({ task: 'withdrawRepoAccess', input: { userId: customer.user.id } })).id
  })

  it.each([
    ['customer', () => customer],
    ['support', () => support],
  ])('%s: no list, no document, no change, no delete (REST)', async (_role, who) => {
    for (const [method, path, body] of [
      ['GET', '/payload-jobs', undefined],
      ['GET', `/payload-jobs/${jobId}`, undefined],
      ['PATCH', `/payload-jobs/${jobId}`, { hasError: true }],
      ['DELETE', `/payload-jobs/${jobId}`, undefined],
      ['POST', '/payload-jobs', { taskSlug: 'withdrawRepoAccess', input: { userId: 1 } }],
    ] as const) {
      const response = await api(method, path, { as: who(), body })
      expect([method, path, response.status]).toEqual([method, path, 403])
    }
    expect((await payload().findByID({ collection: 'payload-jobs', id: jobId })).hasError).not.toBe(true)
  })

  it.each([
    ['customer', () => customer],
    ['support', () => support],
  ])('%s: nothing through GraphQL', async (_role, who) => {
    const result = await graphql('{ PayloadJobs { docs { id input taskSlug } } }', who())
    expect(result.data?.PayloadJobs ?? null).toBeNull()
    expect(result.errors?.length).toBeGreaterThan(0)
  })

  it('admin: lists and reads jobs (REST and GraphQL), but creates none through the API', async () => {
    const list = await api('GET', '/payload-jobs', { as: admin })
    expect(list.status).toBe(200)
    expect(list.body.docs.map((doc: { id: number }) => doc.id)).toContain(jobId)
    const result = await graphql('{ PayloadJobs { docs { id } } }', admin)
    expect(result.data?.PayloadJobs?.docs.map((doc) => doc.id)).toContain(jobId)
    expect(
      (
        await api('POST', '/payload-jobs', {
          as: admin,
          body: { taskSlug: 'withdrawRepoAccess', input: { userId: 1 } },
        })
      ).status,
    ).toBe(403)
  })

  it('anonymous: nothing', async () => {
    expect((await api('GET', '/payload-jobs')).status).toBe(403)
    expect((await graphql('{ PayloadJobs { docs { id } } }', null)).data?.PayloadJobs ?? null).toBeNull()
  })
})

describe('payload-migrations: admins only', () => {
  // Payload serves no REST or GraphQL for migrations; the rule still holds for every other caller.
  it.each([
    ['customer', () => customer],
    ['support', () => support],
  ])('%s: no read, no write', async (_role, who) => {
    const user = who().user
    const as = { overrideAccess: false, user: { ...user, collection: 'users' as const } }
    await expect(payload().find({ collection: 'payload-migrations', ...as })).rejects.toBeInstanceOf(Forbidden)
    await expect(
      payload().create({ collection: 'payload-migrations', data: { name: 'forged', batch: 99 }, ...as }),
    ).rejects.toBeInstanceOf(Forbidden)
    expect(
      (await payload().find({ collection: 'payload-migrations', where: { name: { equals: 'forged' } } })).totalDocs,
    ).toBe(0)
  })

  it('admin: reads them', async () => {
    const found = await payload().find({
      collection: 'payload-migrations',
      overrideAccess: false,
      user: { ...admin.user, collection: 'users' },
    })
    expect(found.totalDocs).toBeGreaterThan(0)
  })

  it('REST has no route for them and GraphQL no query', async () => {
    expect((await api('GET', '/payload-migrations', { as: customer })).status).toBe(501)
    const result = await graphql('{ PayloadMigrations { docs { id name } } }', admin)
    expect(result.data).toBeUndefined()
    expect(result.errors?.[0]?.message).toMatch(/Cannot query field/)
  })
})

describe('payload-locked-documents: staff only', () => {
  let lockId: number | string
  beforeAll(async () => {
    const lock = await payload().create({
      collection: 'payload-locked-documents',
      data: {
        document: { relationTo: 'users', value: admin.user.id },
        user: { relationTo: 'users', value: admin.user.id },
      },
    })
    lockId = lock.id
  })

  it('customer: no list, no lock, no change, no delete (REST and GraphQL)', async () => {
    for (const [method, path, body] of [
      ['GET', '/payload-locked-documents', undefined],
      ['GET', `/payload-locked-documents/${lockId}`, undefined],
      [
        'POST',
        '/payload-locked-documents',
        {
          document: { relationTo: 'users', value: customer.user.id },
          user: { relationTo: 'users', value: customer.user.id },
        },
      ],
      ['PATCH', `/payload-locked-documents/${lockId}`, { user: { relationTo: 'users', value: customer.user.id } }],
      ['DELETE', `/payload-locked-documents/${lockId}`, undefined],
    ] as const) {
      const response = await api(method, path, { as: customer, body })
      expect([method, path, response.status]).toEqual([method, path, 403])
    }
    const result = await graphql('{ PayloadLockedDocuments { docs { id } } }', customer)
    expect(result.data?.PayloadLockedDocuments ?? null).toBeNull()
    expect(await payload().findByID({ collection: 'payload-locked-documents', id: lockId, depth: 0 })).toBeTruthy()
  })

  it.each([
    ['support', () => support],
    ['admin', () => admin],
  ])('%s: sees the locks (REST and GraphQL)', async (_role, who) => {
    const list = await api('GET', '/payload-locked-documents', { as: who() })
    expect(list.status).toBe(200)
    expect(list.body.docs.map((doc: { id: number }) => doc.id)).toContain(lockId)
    const result = await graphql('{ PayloadLockedDocuments { docs { id } } }', who())
    expect(result.data?.PayloadLockedDocuments?.docs.map((doc) => doc.id)).toContain(lockId)
  })
})

describe('payload-preferences: their owner only', () => {
  const preferenceOf = async (who: TestUser, key: string) =>
    payload().create({
      collection: 'payload-preferences',
      data: { key, value: { who: who.email }, user: { relationTo: 'users', value: who.user.id } },
      user: { ...who.user, collection: 'users' },
    })

  let adminPreference: { id: number | string }
  let customerPreference: { id: number | string }
  beforeAll(async () => {
    adminPreference = await preferenceOf(admin, 'nav')
    customerPreference = await preferenceOf(customer, 'nav')
  })

  it.each([
    ['customer', () => customer],
    ['other customer', () => otherCustomer],
    ['support', () => support],
    ['admin', () => admin],
  ])('%s lists only their own (REST and GraphQL)', async (_role, who) => {
    const list = await api('GET', '/payload-preferences', { as: who() })
    expect(list.status).toBe(200)
    const ids = list.body.docs.map((doc: { id: number }) => doc.id)
    const own = who() === admin ? adminPreference.id : who() === customer ? customerPreference.id : null
    expect(ids).toEqual(own === null ? [] : [own])
    const result = await graphql('{ PayloadPreferences { docs { id } } }', who())
    expect(result.data?.PayloadPreferences?.docs.map((doc) => doc.id)).toEqual(own === null ? [] : [own])
  })

  it("nobody reads, changes or deletes another user's preference", async () => {
    // Payload's own routes GET/POST/DELETE /payload-preferences/:key are the caller's own key; PATCH /:id is the collection's.
    for (const who of [customer, otherCustomer, support]) {
      expect(
        JSON.stringify((await api('GET', `/payload-preferences/${adminPreference.id}`, { as: who })).body),
      ).not.toContain(admin.email)
      expect(
        (
          await api('PATCH', `/payload-preferences/${adminPreference.id}`, {
            as: who,
            body: { value: { forged: true } },
          })
        ).status,
      ).toBeOneOf([403, 404])
      await api('DELETE', `/payload-preferences/${adminPreference.id}`, { as: who })
      const graphqlRead = await graphql(`{ PayloadPreference(id: ${adminPreference.id}) { id value } }`, who)
      expect(JSON.stringify(graphqlRead.data ?? {})).not.toContain(admin.email)
    }
    const kept = await payload().findByID({ collection: 'payload-preferences', id: adminPreference.id })
    expect(kept.value).toEqual({ who: admin.email })
    // The same GraphQL query does read one's own preference.
    const own = await graphql(`{ PayloadPreference(id: ${adminPreference.id}) { id value } }`, admin)
    expect(JSON.stringify(own.data)).toContain(admin.email)
  })

  it("a new preference is always its creator's", async () => {
    const created = await api('POST', '/payload-preferences', {
      as: customer,
      body: { key: 'forged', value: {}, user: { relationTo: 'users', value: admin.user.id } },
    })
    expect(created.status).toBe(201)
    expect(created.body.doc.user).toMatchObject({ relationTo: 'users' })
    const stored = await payload().findByID({ collection: 'payload-preferences', id: created.body.doc.id, depth: 0 })
    expect((stored.user as { value: unknown }).value).toBe(customer.user.id)
  })

  it('anonymous: nothing', async () => {
    expect((await api('GET', '/payload-preferences')).status).toBe(403)
    expect((await api('POST', '/payload-preferences', { body: { key: 'x', value: {} } })).status).toBe(403)
  })
})

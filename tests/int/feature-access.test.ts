import './../support/billing-env'
import './../support/templates-env'

import crypto from 'node:crypto'
import zlib from 'node:zlib'

import { createLocalReq, type PayloadRequest } from 'payload'
import { afterEach, beforeAll, describe, expect, it, type MockInstance, vi } from 'vitest'

import {
  canAccessFeature,
  entitlementsOf,
  featureAccess,
  hasAccess,
  requestEntitlements,
  requireFeature,
} from '../../src/licensing/entitlements'
import { seedStandInPlans } from '../support/billing'
import { lexicalOf } from '../support/field-rules'
import { grantLicense } from '../support/licenses'
import { api, createUser, graphql, type TestUser, usePayload } from '../support/payload'
import { isEntitlementsLookup, startRecording } from '../support/queries'

const payload = usePayload()
let standard: TestUser
let free: TestUser
let templateId: number

beforeAll(async () => {
  await seedStandInPlans(payload())
  standard = await createUser(payload(), 'customer')
  await grantLicense(payload(), standard, 'standard', 'active')
  free = await createUser(payload(), 'customer')
  const bytes = zlib.gzipSync(crypto.randomBytes(1024))
  const template = await payload().create({
    collection: 'templates',
    data: {
      name: 'Access probe',
      slug: 'access-probe',
      category: 'dashboard',
      publishedAt: new Date(Date.now() - 60_000).toISOString(),
    },
    file: { data: bytes, mimetype: 'application/gzip', name: 'access-probe.tar.gz', size: bytes.length },
  })
  templateId = template.id
  const body = lexicalOf('Premium text.')
  for (const [slug, requiredFeature] of [
    ['for-templates', 'templates'],
    ['for-support', 'support'],
    ['for-advanced', 'advanced'],
    ['for-api', 'api'],
  ] as const) {
    await payload().create({
      collection: 'posts',
      data: {
        title: slug,
        slug,
        summary: 'Premium.',
        author: 'Staff',
        requiredFeature,
        body: body as never,
        _status: 'published',
        publishedAt: new Date().toISOString(),
      },
    })
  }
})

let spy: MockInstance | null = null
let stopRecording: (() => void) | null = null
afterEach(() => {
  spy?.mockRestore()
  spy = null
  stopRecording?.()
  stopRecording = null
})

/** Counts the entitlement lookups: each one is one query of the user's licenses and plans. */
const countLicenseQueries = () => {
  const recorder = startRecording(payload())
  stopRecording = recorder.stop
  return () => recorder.statements().filter(isEntitlementsLookup).length
}

const requestOf = (user: TestUser | null): Promise<PayloadRequest> =>
  createLocalReq({ user: user ? { ...user.user, collection: 'users' } : undefined }, payload())

describe('the access factory: one entitlements lookup per request', () => {
  it('every check of one request, concurrent or one after another, shares one lookup', async () => {
    const lookups = countLicenseQueries()
    const req = await requestOf(standard)
    const id = standard.user.id
    const concurrent = await Promise.all([
      featureAccess('templates')({ req }),
      featureAccess('support')({ req }),
      featureAccess('api')({ req }),
      canAccessFeature(payload(), id, 'templates', req),
      hasAccess(payload(), id, req),
      requestEntitlements(req).then((entitlements) => entitlements.features.has('basic')),
    ])
    expect(concurrent).toEqual([true, true, false, true, true, true])
    await expect(requireFeature(payload(), id, 'support', req)).resolves.toBeUndefined()
    await expect(requireFeature(payload(), id, 'advanced', req)).rejects.toMatchObject({
      status: 403,
      code: 'feature_required',
    })
    expect((await entitlementsOf(payload(), id, req)).licenses).toHaveLength(1)
    expect(lookups()).toBe(1)

    // Another request looks up again: the cache lives as long as the request.
    expect(await featureAccess('templates')({ req: await requestOf(standard) })).toBe(true)
    expect(lookups()).toBe(2)
  })

  it('each user of a request gets their own answer', async () => {
    const lookups = countLicenseQueries()
    const req = await requestOf(standard)
    expect(await canAccessFeature(payload(), standard.user.id, 'templates', req)).toBe(true)
    expect(await canAccessFeature(payload(), free.user.id, 'templates', req)).toBe(false)
    expect(await canAccessFeature(payload(), free.user.id, 'basic', req)).toBe(true)
    expect(lookups()).toBe(2)
  })

  it('anonymous requests ask nothing and get nothing', async () => {
    const lookups = countLicenseQueries()
    const req = await requestOf(null)
    expect(await featureAccess('basic')({ req })).toBe(false)
    expect((await requestEntitlements(req)).features.size).toBe(0)
    expect(lookups()).toBe(0)
  })

  it('without a request (the dashboard, scripts) each call looks up', async () => {
    const lookups = countLicenseQueries()
    await canAccessFeature(payload(), standard.user.id, 'templates')
    await canAccessFeature(payload(), standard.user.id, 'support')
    expect(lookups()).toBe(2)
  })

  it('a failed lookup is not remembered: the next check of the request asks again', async () => {
    const query = vi.spyOn((payload().db as unknown as { pool: { query: () => Promise<unknown> } }).pool, 'query')
    spy = query
    query.mockImplementationOnce(() => Promise.reject(new Error('database unavailable')))
    const req = await requestOf(standard)
    // The lookup is a prepared statement sent on the pool (src/db/statements.ts): the pool's own error.
    await expect(featureAccess('templates')({ req })).rejects.toThrow('database unavailable')
    expect(await featureAccess('templates')({ req })).toBe(true)
  })

  it("over REST and GraphQL: a list of premium posts checks each post's key on one lookup", async () => {
    const lookups = countLicenseQueries()
    const rest = await api('GET', '/posts?limit=100&sort=slug', { as: standard })
    expect(rest.status).toBe(200)
    const readable = (docs: { slug: string; body?: unknown }[]) => docs.filter((doc) => doc.body).map((doc) => doc.slug)
    expect(readable(rest.body.docs)).toEqual(['for-support', 'for-templates'])
    expect(lookups()).toBe(1)
    const viaGraphql = await graphql('{ Posts(limit: 100, sort: "slug") { docs { slug body } } }', standard)
    expect(readable((viaGraphql.data?.Posts?.docs ?? []) as { slug: string; body?: unknown }[])).toEqual([
      'for-support',
      'for-templates',
    ])
    expect(lookups()).toBe(2)
  })

  it('over HTTP: a template download checks the key and picks the license on one lookup', async () => {
    const lookups = countLicenseQueries()
    const response = await api('GET', `/templates/${templateId}/download`, { as: standard })
    expect(response.status).toBe(200)
    expect(lookups()).toBe(1)
    const refused = await api('GET', `/templates/${templateId}/download`, { as: free })
    expect(refused.status).toBe(403)
    expect(refused.body.errors[0].code).toBe('feature_required')
    expect(lookups()).toBe(2)
  })
})

import './../support/billing-env'
import './../support/templates-env'

import crypto from 'node:crypto'
import zlib from 'node:zlib'

import { createLocalJWKSet, jwtVerify } from 'jose'
import { beforeAll, describe, expect, it } from 'vitest'

import { PRICES, service } from '../support/billing-env'
import { buy, rows, seedStandInPlans } from '../support/billing'
import { api, createUser, type TestUser, usePayload } from '../support/payload'
import { createRelease } from '../support/releases'

/**
 * Issue 10's "done when", as one story through the real endpoints: purchases through the processor
 * stand-in, then every feature key doing what it opens, then support revoking a license.
 */
const payload = usePayload()
const local = (url: string) => url.replace('http://localhost:3000', service.url)

let standard: TestUser
let ultimate: TestUser
let support: TestUser
let templateId: number
let newest: { bytes: Buffer }

beforeAll(async () => {
  await seedStandInPlans(payload())
  ;[standard, ultimate, support] = await Promise.all([
    createUser(payload(), 'customer'),
    createUser(payload(), 'customer'),
    createUser(payload(), 'support'),
  ])
  await buy(PRICES.standard, { as: standard })
  await buy(PRICES.ultimate, { as: ultimate })
  const bytes = zlib.gzipSync(crypto.randomBytes(4096))
  const template = await payload().create({
    collection: 'templates',
    data: {
      name: 'SaaS dashboard',
      slug: 'saas-dashboard',
      description: 'A dashboard.',
      category: 'dashboard',
      publishedAt: new Date(Date.now() - 60_000).toISOString(),
    },
    file: { data: bytes, mimetype: 'application/gzip', name: 'saas-dashboard.tar.gz', size: bytes.length },
  })
  templateId = template.id
  await createRelease(payload(), '1.0.0')
  newest = await createRelease(payload(), '1.1.0')
})

describe('a standard buyer', () => {
  it('downloads a template through its signed link', async () => {
    const link = await api('GET', `/templates/${templateId}/download`, { as: standard })
    expect(link.status).toBe(200)
    const file = await fetch(local(link.body.url))
    expect(file.status).toBe(200)
    expect(Buffer.from(await file.arrayBuffer()).subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]))
  })

  it('files a support request that lands as high priority, whatever the body says', async () => {
    const filed = await api('POST', '/support_requests', {
      as: standard,
      body: { subject: 'Install help', message: 'How do I start?', priority: 'normal' },
    })
    expect(filed.status).toBe(201)
    expect(filed.body.doc.priority).toBe('high')
  })

  it('is refused an API key', async () => {
    const refused = await api('POST', '/account/api-keys', { as: standard, body: { name: 'ci' } })
    expect(refused.status).toBe(403)
    expect(refused.body.errors[0].code).toBe('feature_required')
  })
})

describe('an ultimate buyer, their deployed app, and support', () => {
  let apiKey: string
  let licenseKey: string
  let licenseId: number

  it('creates an API key and downloads the newest release with Authorization: Bearer', async () => {
    const created = await api('POST', '/account/api-keys', { as: ultimate, body: { name: 'deploy script' } })
    expect(created.status).toBe(201)
    apiKey = created.body.key
    const link = await api('GET', '/download', { headers: { authorization: `Bearer ${apiKey}` } })
    expect(link.status).toBe(200)
    expect(link.body.version).toBe('1.1.0')
    const file = await fetch(local(link.body.url))
    expect(Buffer.from(await file.arrayBuffer())).toEqual(newest.bytes)
  })

  it('the app validates the license and verifies the certificate offline with the published key', async () => {
    const [license] = await rows(payload(), 'licenses', { user: { equals: ultimate.user.id } })
    licenseKey = license!.key
    licenseId = license!.id
    const validation = await api('POST', '/licenses/validate', { body: { key: licenseKey, fingerprint: 'app-1' } })
    expect(validation.status).toBe(200)
    expect(validation.body).toMatchObject({ valid: true, code: 'VALID', plan: 'ultimate' })
    const jwks = await api('GET', '/licenses/public-key', { as: null })
    // Offline from here on: only the key set fetched once.
    const { payload: claims } = await jwtVerify(validation.body.certificate, createLocalJWKSet(jwks.body))
    expect(claims).toMatchObject({ license: licenseKey, plan: 'ultimate', fpr: 'app-1' })
    expect(claims.features).toEqual(expect.arrayContaining(['api', 'advanced']))
  })

  it('support revokes the license with a reason: the next validation is REVOKED and the API key stops working', async () => {
    const revoked = await api('PATCH', `/licenses/${licenseId}`, {
      as: support,
      body: { override: 'revoked', overrideReason: 'chargeback by phone' },
    })
    expect(revoked.status).toBe(200)
    const audit = await rows(payload(), 'audit_log')
    expect(audit.some((row) => JSON.stringify(row).includes('chargeback by phone'))).toBe(true)
    const validation = await api('POST', '/licenses/validate', { body: { key: licenseKey } })
    expect(validation.body).toMatchObject({ valid: false, code: 'REVOKED', certificate: null })
    const download = await api('GET', '/download', { headers: { authorization: `Bearer ${apiKey}` } })
    expect(download.status).toBe(403)
    expect(download.body.errors[0].code).toBe('feature_required')
  })
})

import './../support/billing-env'

import { beforeAll, describe, expect, it } from 'vitest'

import type { License } from '../../src/payload-types'
import { PRICES } from '../support/billing-env'
import { buy, rows, seedStandInPlans } from '../support/billing'
import { api, createUser, type TestUser, usePayload } from '../support/payload'
import { createRelease } from '../support/releases'

/**
 * The account export (docs/PRIVACY.md): everything held about the signed-in account in one JSON
 * document, and nothing of anyone else's, no secret, no staff note. Purchases go through the real
 * checkout and the processor stand-in, so the payments, invoices and analytics events are the real ones.
 */
const payload = usePayload()
const STAFF_NOTE = 'chargeback called in by phone, note 7731'
let alice: TestUser
let bob: TestUser
let support: TestUser
let aliceLicense: License
let bobLicense: License
let aliceApiKey = ''

type Export = Record<string, unknown> & {
  profile: { email: string }
  licenses: { key: string; plan: string; activations: unknown[]; seatsGiven: { email: string }[] }[]
  seats: { plan: string; status: string }[]
  payments: { amount: number; currency: string; invoiceUrl: string | null }[]
  purchases: unknown[]
  identities: { provider: string; accountId: string }[]
  apiKeys: { name: string; prefix: string }[]
  downloads: { kind: string; version?: string; license?: string | null; clientAddress: string | null }[]
  supportRequests: { subject: string; replies: { body: string; fromStaff: boolean }[] }[]
  analyticsEvents: { name: string; properties: Record<string, unknown> | null }[]
}

const exportOf = (who: TestUser | null, headers: Record<string, string> = {}) =>
  api<Export>('GET', '/account/export', { as: who, headers })

beforeAll(async () => {
  await seedStandInPlans(payload())
  ;[alice, bob, support] = await Promise.all([
    createUser(payload(), 'customer', { name: 'Alice Privacy' }),
    createUser(payload(), 'customer', { name: 'Bob Elsewhere' }),
    createUser(payload(), 'support'),
  ])
  await buy(PRICES.ultimate, { as: alice })
  await buy(PRICES.ultimate, { as: bob })
  aliceLicense = (await rows(payload(), 'licenses', { user: { equals: alice.user.id } }))[0]!
  bobLicense = (await rows(payload(), 'licenses', { user: { equals: bob.user.id } }))[0]!
  // Alice: an installation, a seat given to Bob and claimed, a support thread, an API key, a GitHub identity, a download.
  await api('POST', '/licenses/activate', {
    body: { key: aliceLicense!.key, fingerprint: 'alice-laptop', label: 'Laptop' },
  })
  await payload().create({
    collection: 'license_seats',
    data: {
      license: aliceLicense!.id,
      email: bob.email,
      status: 'claimed',
      member: bob.user.id,
      claimedAt: new Date().toISOString(),
    },
    overrideAccess: true,
  })
  const request = await payload().create({
    collection: 'support_requests',
    data: {
      subject: 'Install fails on Windows',
      message: 'npm ci stops at sharp',
      user: alice.user.id,
      priority: 'high',
      status: 'open',
    },
    overrideAccess: true,
  })
  await payload().create({
    collection: 'support_replies',
    data: { request: request.id, body: 'Try Node 20.', fromStaff: true, author: support.user.id },
    overrideAccess: true,
  })
  aliceApiKey = (await api<{ key: string }>('POST', '/account/api-keys', { as: alice, body: { name: 'CI server' } }))
    .body.key
  await payload().create({
    collection: 'oauth_identities',
    data: { provider: 'github', subject: '4242', email: alice.email, user: alice.user.id },
    overrideAccess: true,
  })
  const { release } = await createRelease(payload(), '1.0.0', new Date(Date.now() - 60_000))
  await payload().create({
    collection: 'downloads',
    data: {
      release: release.id,
      user: alice.user.id,
      license: aliceLicense!.id,
      version: '1.0.0',
      clientAddress: '203.0.113.9',
      userAgent: 'curl/8',
    },
    overrideAccess: true,
  })
  // Bob's license revoked by support, with a note only staff may read.
  await api('POST', `/staff/licenses/${bobLicense!.id}/revoke`, { as: support, body: { reason: STAFF_NOTE } })
}, 120_000)

describe('GET /api/account/export', () => {
  it("answers the account's whole record as a JSON attachment", async () => {
    const { status, body, headers } = await exportOf(alice)
    expect(status).toBe(200)
    expect(headers.get('content-type')).toMatch(/^application\/json/)
    expect(headers.get('content-disposition')).toMatch(/^attachment; filename="account-\d+-\d{4}-\d{2}-\d{2}\.json"$/)
    expect(headers.get('cache-control')).toBe('no-store')
    expect(Object.keys(body).sort()).toEqual(
      [
        'exportedAt',
        'profile',
        'identities',
        'licenses',
        'seats',
        'purchases',
        'subscriptions',
        'payments',
        'downloads',
        'supportRequests',
        'apiKeys',
        'repoAccess',
        'discord',
        'abandonedCheckouts',
        'recoveryEmailsUnsubscribed',
        'affiliate',
        'analyticsEvents',
      ].sort(),
    )
    expect(body.profile).toMatchObject({ email: alice.email, name: 'Alice Privacy', emailVerified: true })
    expect(body.identities).toEqual([expect.objectContaining({ provider: 'github', accountId: '4242' })])
    expect(body.licenses).toHaveLength(1)
    expect(body.licenses[0]).toMatchObject({ key: aliceLicense.key, plan: 'ultimate', status: 'active' })
    expect(body.licenses[0]!.activations).toEqual([
      expect.objectContaining({ fingerprint: 'alice-laptop', label: 'Laptop' }),
    ])
    expect(body.licenses[0]!.seatsGiven).toEqual([expect.objectContaining({ email: bob.email, status: 'claimed' })])
    expect(body.purchases).toHaveLength(1)
    expect(body.payments).toEqual([expect.objectContaining({ amount: expect.any(Number) as number, currency: 'usd' })])
    expect(body.payments[0]!.invoiceUrl).toMatch(/^https?:\/\//)
    expect(body.downloads).toEqual([
      expect.objectContaining({
        kind: 'release',
        version: '1.0.0',
        license: aliceLicense.key,
        clientAddress: '203.0.113.9',
      }),
    ])
    expect(body.supportRequests).toEqual([
      expect.objectContaining({
        subject: 'Install fails on Windows',
        replies: [expect.objectContaining({ body: 'Try Node 20.', fromStaff: true })],
      }),
    ])
    expect(body.apiKeys).toEqual([
      expect.objectContaining({ name: 'CI server', prefix: aliceApiKey.split('_').slice(0, 2).join('_') }),
    ])
    expect(body.analyticsEvents.map((event) => event.name)).toContain('license_granted')
    expect(body.discord).toBeNull()
  })

  it("holds nothing of another customer's, no secret and no staff note", async () => {
    const alicesText = JSON.stringify((await exportOf(alice)).body)
    for (const other of ['Bob Elsewhere', bobLicense.key]) expect(alicesText).not.toContain(other)
    // Bob's address is there once: as the seat Alice gave him, which she typed herself.
    expect(alicesText.split(bob.email)).toHaveLength(2)
    // Secrets: the API key itself, any hash, sessions, reset tokens.
    expect(alicesText).not.toContain(aliceApiKey)
    for (const name of [
      'hash',
      'salt',
      'keyHash',
      'claimTokenHash',
      'tokenHash',
      'sessions',
      'resetPasswordToken',
      'loginAttempts',
    ])
      expect(alicesText).not.toContain(`"${name}"`)
    const aliceRow = await payload().findByID({
      collection: 'users',
      id: alice.user.id,
      showHiddenFields: true,
      overrideAccess: true,
    })
    expect(aliceRow.hash?.length).toBeGreaterThan(20)
    expect(alicesText).not.toContain(aliceRow.hash!)

    // Bob holds a seat of Alice's license: he sees its plan, never its key.
    const bobs = await exportOf(bob)
    expect(bobs.body.seats).toEqual([expect.objectContaining({ plan: 'ultimate', status: 'claimed' })])
    const bobsText = JSON.stringify(bobs.body)
    expect(bobsText).not.toContain(aliceLicense.key)
    expect(bobsText).not.toContain(alice.email)
    // His revocation's reason and who revoked are staff notes.
    expect(bobs.body.licenses[0]).toMatchObject({ key: bobLicense.key, status: 'revoked' })
    expect(bobsText).not.toContain(STAFF_NOTE)
    expect(bobsText).not.toContain(`"revokedBy"`)
    expect(bobsText).not.toContain(`"by"`)
  })

  it('needs a session: anonymous is 401, an API key 403 api_key_not_allowed; the query names no one', async () => {
    // A query naming another account changes nothing: the export is the session's account.
    const steered = await api<Export>('GET', `/account/export?user=${bob.user.id}&where[user][equals]=${bob.user.id}`, {
      as: alice,
    })
    expect(steered.body.profile.email).toBe(alice.email)
    const anonymous = await exportOf(null)
    expect(anonymous.status).toBe(401)
    expect(anonymous.body).toMatchObject({ errors: [{ code: 'unauthenticated' }] })
    const byKey = await exportOf(null, { authorization: `Bearer ${aliceApiKey}` })
    expect(byKey.status).toBe(403)
    expect(byKey.body).toMatchObject({ errors: [{ code: 'api_key_not_allowed' }] })
  })

  it('allows 5 exports a day per account, then 429 with Retry-After; other accounts are not held back', async () => {
    const carol = await createUser(payload(), 'customer')
    for (let index = 0; index < 5; index++) expect((await exportOf(carol)).status).toBe(200)
    const refused = await exportOf(carol)
    expect(refused.status).toBe(429)
    expect(refused.body).toMatchObject({ errors: [{ code: 'rate_limited' }] })
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(23 * 3600)
    expect((await exportOf(await createUser(payload(), 'customer'))).status).toBe(200)
  })
})

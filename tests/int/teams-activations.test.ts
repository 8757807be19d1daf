import './../support/billing-env'

import { createLocalJWKSet, type JSONWebKeySet, jwtVerify } from 'jose'
import { beforeAll, describe, expect, it } from 'vitest'

import { ACTIVATION_CERTIFICATE_TTL_SECONDS, CERTIFICATE_MAX_TTL_SECONDS } from '../../src/licensing/certificates'
import { generateLicenseKey } from '../../src/licensing/keys'
import type { License } from '../../src/payload-types'
import { DEACTIVATIONS_PER_DAY, deactivateWithKey } from '../../src/teams/activations'
import { rows, seedStandInPlans } from '../support/billing'
import { api, createUser, SERVER_URL, type TestUser, usePayload } from '../support/payload'
import { recordOwnRun } from '../support/queries'

/**
 * Activations (docs/TEAMS.md): the real endpoints in-process on a real PostgreSQL. The key is
 * the credential; the plan's maxActivations caps the live ones; deactivations are limited a day so the
 * cap cannot be churned.
 */
const payload = usePayload()
const LIMIT = 2
let jwks: JSONWebKeySet

beforeAll(async () => {
  await seedStandInPlans(payload())
  const standard = (
    await payload().find({ collection: 'plans', where: { slug: { equals: 'standard' } }, limit: 1, depth: 0 })
  ).docs[0]!
  await payload().update({
    collection: 'plans',
    id: standard.id,
    data: { maxActivations: LIMIT },
    overrideAccess: true,
  })
  jwks = (await api<JSONWebKeySet>('GET', '/licenses/public-key')).body
})

const planId = async (slug: string) =>
  (await payload().find({ collection: 'plans', where: { slug: { equals: slug } }, limit: 1, depth: 0 })).docs[0]!.id

/** A license of `slug` (Standard has the limit, Ultimate none), owned by `owner` when given. */
const grant = async (
  slug: 'standard' | 'ultimate',
  data: Partial<Pick<License, 'status' | 'validUntil'>> & { owner?: TestUser } = {},
): Promise<License> =>
  payload().create({
    collection: 'licenses',
    data: {
      key: generateLicenseKey(),
      plan: await planId(slug),
      source: 'manual',
      status: 'active',
      user: data.owner?.user.id ?? null,
      ...data,
      owner: undefined,
    } as never,
    overrideAccess: true,
  })

const activate = (body: unknown, address?: string) =>
  api('POST', '/licenses/activate', { body, ...(address ? { address } : {}) })
const deactivate = (body: unknown) => api('POST', '/licenses/deactivate', { body })
const validate = (body: unknown) => api('POST', '/licenses/validate', { body })

describe('POST /api/licenses/activate', () => {
  it('201 with the counts; the same fingerprint again is the same activation (200); 409 at the limit with {used, limit}', async () => {
    const license = await grant('standard')
    const first = await activate({ key: license.key, fingerprint: 'machine-a', label: 'Build server' })
    expect(first.status).toBe(201)
    expect(first.body).toMatchObject({
      fingerprint: 'machine-a',
      label: 'Build server',
      activations: { used: 1, limit: LIMIT },
    })
    const again = await activate({ key: license.key.toLowerCase(), fingerprint: 'machine-a', label: 'Renamed' })
    expect(again.status).toBe(200)
    expect(again.body).toMatchObject({
      id: first.body.id,
      label: 'Build server',
      activations: { used: 1, limit: LIMIT },
    })
    expect((await activate({ key: license.key, fingerprint: 'machine-b' })).status).toBe(201)
    const third = await activate({ key: license.key, fingerprint: 'machine-c' })
    expect(third.status).toBe(409)
    expect(third.body.errors[0]).toMatchObject({ code: 'activation_limit_reached', used: 2, limit: LIMIT })
    expect(await rows(payload(), 'license_activations', { license: { equals: license.id } })).toHaveLength(2)
  })

  it('a plan without a limit activates any number (limit null)', async () => {
    const license = await grant('ultimate')
    for (let index = 0; index < 4; index += 1) {
      const response = await activate({ key: license.key, fingerprint: `host-${index}` })
      expect(response.status).toBe(201)
      expect(response.body.activations).toEqual({ used: index + 1, limit: null })
    }
  })

  it('a key that opens nothing answers its validation code, and records nothing', async () => {
    const revoked = await grant('standard', { status: 'revoked' })
    const lapsed = await grant('standard', { validUntil: new Date(Date.now() - 1000).toISOString() })
    const cases: [string, number, string, string][] = [
      [generateLicenseKey(), 404, 'license_not_found', 'NOT_FOUND'],
      ['not a key', 404, 'license_not_found', 'NOT_FOUND'],
      [revoked.key, 403, 'license_revoked', 'REVOKED'],
      [lapsed.key, 403, 'license_expired', 'EXPIRED'],
    ]
    for (const [key, status, code, validation] of cases) {
      const response = await activate({ key, fingerprint: 'anywhere' })
      expect(response.status, key).toBe(status)
      expect(response.body.errors[0]).toMatchObject({ code, validation })
    }
    expect(await rows(payload(), 'license_activations', { license: { in: [revoked.id, lapsed.id] } })).toHaveLength(0)
  })

  it.each([
    ['no fingerprint', { key: 'KIT-00000-00000-00000-00000' }],
    ['an empty fingerprint', { key: 'KIT-00000-00000-00000-00000', fingerprint: '' }],
    ['a fingerprint over 200 characters', { key: 'KIT-00000-00000-00000-00000', fingerprint: 'f'.repeat(201) }],
    ['a fingerprint with control characters', { key: 'KIT-00000-00000-00000-00000', fingerprint: 'a\u0000b' }],
    ['a label over 100 characters', { key: 'KIT-00000-00000-00000-00000', fingerprint: 'a', label: 'l'.repeat(101) }],
    ['a 5,000-character key', { key: 'K'.repeat(5000), fingerprint: 'a' }],
  ])('400 invalid_request for %s', async (_what, body) => {
    const response = await activate(body)
    expect(response.status).toBe(400)
    expect(response.body.errors[0].code).toBe('invalid_request')
  })

  it('concurrent activations at the limit: never more live activations than the limit', async () => {
    const license = await grant('standard')
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, index) => activate({ key: license.key, fingerprint: `racer-${index}` })),
    )
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(LIMIT)
    expect(answers.filter((answer) => answer.status === 409)).toHaveLength(10 - LIMIT)
    const live = (await rows(payload(), 'license_activations', { license: { equals: license.id } })).filter(
      (row) => !row.deactivatedAt,
    )
    expect(live).toHaveLength(LIMIT)
    // The same fingerprint from many instances at once: one activation.
    const other = await grant('standard')
    const same = await Promise.all(
      Array.from({ length: 6 }, () => activate({ key: other.key, fingerprint: 'one-machine' })),
    )
    expect(same.filter((answer) => answer.status === 201)).toHaveLength(1)
    expect(new Set(same.map((answer) => answer.body.id)).size).toBe(1)
  })
})

describe('POST /api/licenses/deactivate', () => {
  it("204 frees the place; another license's key gets 404 activation_not_found and changes nothing", async () => {
    const license = await grant('standard')
    const other = await grant('standard')
    const a = await activate({ key: license.key, fingerprint: 'a' })
    await activate({ key: license.key, fingerprint: 'b' })
    const foreign = await deactivate({ key: other.key, activationId: a.body.id })
    expect(foreign.status).toBe(404)
    expect(foreign.body.errors[0].code).toBe('activation_not_found')
    expect((await deactivate({ key: generateLicenseKey(), activationId: a.body.id })).status).toBe(404)
    const [still] = await rows(payload(), 'license_activations', { id: { equals: a.body.id } })
    expect(still!.deactivatedAt).toBeNull()

    expect((await deactivate({ key: license.key, activationId: a.body.id })).status).toBe(204)
    expect((await deactivate({ key: license.key, activationId: a.body.id })).status).toBe(204) // ended already: nothing counted
    expect((await activate({ key: license.key, fingerprint: 'c' })).status).toBe(201)
    const [ended] = await rows(payload(), 'license_activations', { id: { equals: a.body.id } })
    expect(ended).toMatchObject({ deactivatedBy: 'key' })
  })

  it(`at most ${DEACTIVATIONS_PER_DAY} a rolling day per license, shared with the owner's dashboard: 429 deactivation_limit with Retry-After`, async () => {
    const owner = await createUser(payload(), 'customer')
    const license = await grant('standard', { owner })
    const ids: number[] = []
    for (let index = 0; index < DEACTIVATIONS_PER_DAY + 1; index += 1) {
      const created = await activate({ key: license.key, fingerprint: `churn-${index}` })
      expect(created.status).toBe(201)
      ids.push(created.body.id)
      if (index < DEACTIVATIONS_PER_DAY) {
        // Two by key, the last from the dashboard's endpoint: one shared count.
        const ended =
          index === DEACTIVATIONS_PER_DAY - 1
            ? await api('DELETE', `/licenses/${license.id}/activations/${created.body.id}`, { as: owner })
            : await deactivate({ key: license.key, activationId: created.body.id })
        expect(ended.status).toBe(204)
      }
    }
    const refused = await deactivate({ key: license.key, activationId: ids.at(-1) })
    expect(refused.status).toBe(429)
    expect(refused.body.errors[0].code).toBe('deactivation_limit')
    const retryAfter = Number(refused.headers.get('retry-after'))
    expect(retryAfter).toBeGreaterThan(23 * 3600)
    expect(retryAfter).toBeLessThanOrEqual(24 * 3600)
    expect((await api('DELETE', `/licenses/${license.id}/activations/${ids.at(-1)}`, { as: owner })).status).toBe(429)
    // A day later the oldest no longer counts.
    await deactivateWithKey(
      payload(),
      { key: license.key, activationId: ids.at(-1)! },
      new Date(Date.now() + 24 * 3600 * 1000 + 1000),
    )
    // Staff are not counted, and their removal works whatever the count.
    const support = await createUser(payload(), 'support')
    const extra = await activate({ key: license.key, fingerprint: 'staff-case' })
    const removed = await api('POST', `/staff/license-activations/${extra.body.id}/remove`, {
      as: support,
      body: { reason: 'customer moved servers' },
    })
    expect(removed.status).toBe(200)
    expect(removed.body.activation).toMatchObject({ id: extra.body.id, removed: true })
    expect(
      (await api('POST', `/staff/license-activations/${extra.body.id}/remove`, { as: owner, body: { reason: 'x' } }))
        .status,
    ).toBe(403)
  })

  it("the owner's dashboard endpoints: list and deactivate their own; 404 for another customer's license", async () => {
    const owner = await createUser(payload(), 'customer')
    const stranger = await createUser(payload(), 'customer')
    const license = await grant('standard', { owner })
    const created = await activate({ key: license.key, fingerprint: 'laptop', label: 'My laptop' })
    const list = await api('GET', `/licenses/${license.id}/activations`, { as: owner })
    expect(list.status).toBe(200)
    expect(list.body).toMatchObject({
      limit: LIMIT,
      activations: [{ id: created.body.id, fingerprint: 'laptop', label: 'My laptop' }],
    })
    expect((await api('GET', `/licenses/${license.id}/activations`, { as: stranger })).status).toBe(404)
    expect(
      (await api('DELETE', `/licenses/${license.id}/activations/${created.body.id}`, { as: stranger })).status,
    ).toBe(404)
    expect((await api('GET', `/licenses/${license.id}/activations`)).status).toBe(401)
  })

  it('400 invalid_request for an activation id that is not a positive integer', async () => {
    for (const activationId of ['1', -1, 0, 1.5, 2 ** 40, null]) {
      expect(
        (await deactivate({ key: 'KIT-00000-00000-00000-00000', activationId })).status,
        String(activationId),
      ).toBe(400)
    }
  })
})

describe('validation with activations', () => {
  it('on a plan with a limit: NO_ACTIVATION without an activated fingerprint; VALID with one, its certificate bound to it (fpr)', async () => {
    const license = await grant('standard')
    for (const body of [{ key: license.key }, { key: license.key, fingerprint: 'never-activated' }]) {
      const response = await validate(body)
      expect(response.status).toBe(200)
      expect(response.body).toMatchObject({ valid: false, code: 'NO_ACTIVATION', features: [], certificate: null })
    }
    await activate({ key: license.key, fingerprint: 'server-1' })
    const valid = await validate({ key: license.key, fingerprint: 'server-1' })
    expect(valid.body).toMatchObject({ valid: true, code: 'VALID' })
    const { payload: claims } = await jwtVerify(valid.body.certificate, createLocalJWKSet(jwks), {
      issuer: SERVER_URL,
      algorithms: ['EdDSA'],
    })
    expect(claims.fpr).toBe('server-1')
    // A deactivated installation keeps its certificate until exp: on a plan with a limit that is at most 72 hours.
    expect(claims.exp! - claims.iat!).toBe(ACTIVATION_CERTIFICATE_TTL_SECONDS)
    expect(ACTIVATION_CERTIFICATE_TTL_SECONDS).toBe(72 * 3600)
    // Deactivated: no longer valid there.
    const [activation] = await rows(payload(), 'license_activations', { license: { equals: license.id } })
    await deactivate({ key: license.key, activationId: activation!.id })
    expect((await validate({ key: license.key, fingerprint: 'server-1' })).body.code).toBe('NO_ACTIVATION')
  })

  it('a plan without a limit validates any fingerprint, as before, its certificates living 14 days', async () => {
    const license = await grant('ultimate')
    const valid = await validate({ key: license.key, fingerprint: 'anything' })
    expect(valid.body.code).toBe('VALID')
    const { payload: claims } = await jwtVerify(valid.body.certificate, createLocalJWKSet(jwks), {
      issuer: SERVER_URL,
      algorithms: ['EdDSA'],
    })
    expect(claims.exp! - claims.iat!).toBe(CERTIFICATE_MAX_TTL_SECONDS)
    expect((await validate({ key: license.key })).body.code).toBe('VALID')
  })

  it('an invalid license stays its own code even when activated (REVOKED, not NO_ACTIVATION)', async () => {
    const license = await grant('standard')
    await activate({ key: license.key, fingerprint: 'x' })
    await payload().update({
      collection: 'licenses',
      id: license.id,
      data: { status: 'revoked' },
      overrideAccess: true,
    })
    expect((await validate({ key: license.key, fingerprint: 'x' })).body.code).toBe('REVOKED')
  })

  it('stays one statement; "last validated" is written at most hourly per activation', async () => {
    const license = await grant('standard')
    await activate({ key: license.key, fingerprint: 'counted' })
    const licenseStatements = async () =>
      (await recordOwnRun(payload(), () => validate({ key: license.key, fingerprint: 'counted' }))).statements.filter(
        (text) => !text.includes('rate_limits'),
      )
    // Just activated (last validated now): one statement.
    expect(await licenseStatements()).toHaveLength(1)
    await payload().db.drizzle.execute(
      `UPDATE license_activations SET last_validated_at = now() - interval '2 hours' WHERE fingerprint = 'counted'`,
    )
    const stale = await licenseStatements()
    expect(stale).toHaveLength(2)
    expect(stale[1]).toContain('UPDATE')
    expect(await licenseStatements()).toHaveLength(1)
  })

  it('records activation_created and activation_deleted once each', async () => {
    const license = await grant('standard')
    const created = await activate({ key: license.key, fingerprint: 'tracked' })
    await deactivate({ key: license.key, activationId: created.body.id })
    const events = await rows(payload(), 'analytics_events', {
      sourceEventId: { equals: `activation:${created.body.id}` },
    })
    expect(events.map((event) => event.name).sort()).toEqual(['activation_created', 'activation_deleted'])
  })
})

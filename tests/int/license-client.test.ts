import { service } from '../support/license-client-env'

import { execFile } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'

import { beforeAll, describe, expect, it } from 'vitest'

import { createLicenseClient, type LicenseClientOptions, memoryStorage } from '../../packages/license-client/src/index'
import { api, createUser, type TestUser, usePayload } from '../support/payload'
import { grantLicense, seedPlansWithoutProcessor } from '../support/licenses'

/**
 * The license client (packages/license-client) against the service itself, over real HTTP: its
 * validation, activation and key-set endpoints, and the certificates it signs. The client's behaviour
 * when the service misbehaves is in the package's own tests; the packed package against a production
 * build, across a key rotation, in tests/int/license-client-packed.test.ts.
 */
const payload = usePayload()
const root = path.resolve(import.meta.dirname, '../..')
let owner: TestUser
let support: TestUser

beforeAll(async () => {
  await seedPlansWithoutProcessor(payload())
  const standard = (
    await payload().find({ collection: 'plans', where: { slug: { equals: 'standard' } }, limit: 1, depth: 0 })
  ).docs[0]!
  await payload().update({ collection: 'plans', id: standard.id, data: { maxActivations: 1 }, overrideAccess: true })
  owner = await createUser(payload(), 'customer')
  support = await createUser(payload(), 'support')
})

/** A client of the service; `down` points it at a port nothing listens on, as a service that is unreachable. */
const clientOf = (options: Partial<LicenseClientOptions> & { down?: boolean } = {}) => {
  const { down, ...rest } = options
  return createLicenseClient({
    serviceUrl: service.url,
    storage: memoryStorage(),
    fingerprint: 'host:ci;install:first',
    timeoutMs: 5_000,
    ...(down
      ? {
          fetch: (input: RequestInfo | URL, init?: RequestInit) =>
            fetch(
              (input instanceof Request ? input.url : input.toString()).replace(service.url, 'http://127.0.0.1:9'),
              init,
            ),
        }
      : {}),
    ...rest,
  })
}

describe('the license client against the service', () => {
  it('checks a license of a plan without an activation limit online, then offline from what it stored', async () => {
    const license = await grantLicense(payload(), owner, 'ultimate', 'active')
    const storage = memoryStorage()
    const online = await clientOf({ storage }).check({ key: license.key.toLowerCase() })
    expect(online).toMatchObject({ status: 'valid', code: 'VALID', source: 'online' })
    expect(online.claims).toMatchObject({
      license: license.key,
      plan: 'ultimate',
      fpr: 'host:ci;install:first',
      iss: service.url,
      upd: { policy: 'lifetime' },
    })
    expect(online.claims!.features).toContain('advanced')
    const offline = await clientOf({ storage, down: true }).check()
    expect(offline).toMatchObject({ status: 'valid', code: 'VALID', source: 'stored', claims: online.claims })
    // Copied to another machine (another fingerprint), the stored certificate is refused offline.
    expect(await clientOf({ storage, down: true, fingerprint: 'host:other;install:first' }).check()).toEqual({
      status: 'invalid',
      code: 'NOT_GENUINE',
      source: 'stored',
    })
  })

  it('on a plan that limits activations: NO_ACTIVATION, then activate, the limit, deactivate', async () => {
    const granted = await grantLicense(payload(), owner, 'standard', 'active')
    // Standard's window: updates of the major version current at grant.
    const license = await payload().update({
      collection: 'licenses',
      id: granted.id,
      data: { updatePolicy: 'major', updatesMajor: 1 },
      overrideAccess: true,
    })
    const first = clientOf()
    expect(await first.check({ key: license.key })).toEqual({
      status: 'invalid',
      code: 'NO_ACTIVATION',
      source: 'online',
    })
    const { activation, check } = await first.activate(license.key, { label: 'build server' })
    expect(activation).toMatchObject({
      fingerprint: 'host:ci;install:first',
      label: 'build server',
      activations: { used: 1, limit: 1 },
    })
    expect(check).toMatchObject({ status: 'valid', code: 'VALID', source: 'online', claims: { plan: 'standard' } })
    // The certificate of a plan that limits activations lives 72 hours.
    expect(check.claims!.exp - check.claims!.iat).toBe(72 * 3600)
    expect(await first.canUpdateTo({ version: '1.4.0', publishedAt: new Date() })).toEqual({
      allowed: true,
      reason: 'WITHIN_MAJOR',
    })
    expect(await first.canUpdateTo({ version: '2.0.0', publishedAt: new Date() })).toEqual({
      allowed: false,
      reason: 'NEWER_MAJOR',
    })

    const second = clientOf({ fingerprint: 'host:ci;install:second' })
    await expect(second.activate(license.key)).rejects.toMatchObject({
      code: 'activation_limit_reached',
      status: 409,
      details: { used: 1, limit: 1 },
    })
    await first.deactivate()
    const { docs } = await payload().find({
      collection: 'license_activations',
      where: { license: { equals: license.id } },
      overrideAccess: true,
    })
    expect(docs).toHaveLength(1)
    expect(docs[0]!.deactivatedAt).toBeTruthy()
    expect((await second.activate(license.key)).check).toMatchObject({ code: 'VALID' })
  })

  it('a license revoked by support answers REVOKED online, and its certificate no longer serves offline', async () => {
    const license = await grantLicense(payload(), owner, 'ultimate', 'active')
    const storage = memoryStorage()
    expect(await clientOf({ storage }).check({ key: license.key })).toMatchObject({ code: 'VALID' })
    const revoked = await api('POST', `/staff/licenses/${license.id}/revoke`, {
      as: support,
      body: { reason: 'chargeback by phone' },
    })
    expect(revoked.status).toBe(200)
    expect(await clientOf({ storage }).check()).toEqual({ status: 'invalid', code: 'REVOKED', source: 'online' })
    expect(await clientOf({ storage, down: true }).check()).toEqual({
      status: 'invalid',
      code: 'NO_CERTIFICATE',
      source: 'stored',
    })
  })

  it('an unknown key answers NOT_FOUND, and activating it throws license_not_found', async () => {
    const app = clientOf()
    expect(await app.check({ key: 'KIT-00000-00000-00000-00000' })).toEqual({
      status: 'invalid',
      code: 'NOT_FOUND',
      source: 'online',
    })
    await expect(app.activate('KIT-00000-00000-00000-00000')).rejects.toMatchObject({
      code: 'license_not_found',
      status: 404,
    })
  })

  it("answers an app's page on another origin (CORS), without credentials, and only on the app endpoints", async () => {
    const origin = 'https://app.seller.example'
    for (const [method, path] of [
      ['POST', '/validate'],
      ['GET', '/public-key'],
      ['POST', '/activate'],
      ['POST', '/deactivate'],
    ]) {
      const preflight = await fetch(`${service.url}/api/licenses${path}`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': method!, 'access-control-request-headers': 'content-type' },
      })
      expect(preflight.status).toBe(204)
      expect(preflight.headers.get('access-control-allow-origin')).toBe('*')
      expect(preflight.headers.get('access-control-allow-methods')).toContain(method)
      expect(preflight.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('content-type')
      expect(preflight.headers.get('access-control-allow-credentials')).toBeNull()
    }
    const refused = await fetch(`${service.url}/api/licenses/validate`, {
      method: 'POST',
      headers: { origin, 'content-type': 'application/json' },
      body: '{"key": 5}',
    })
    expect(refused.status).toBe(400)
    expect(refused.headers.get('access-control-allow-origin')).toBe('*')
    expect(refused.headers.get('access-control-expose-headers')).toBe('Retry-After')
    expect(refused.headers.get('access-control-allow-credentials')).toBeNull()
    const keys = await fetch(`${service.url}/api/licenses/public-key`, { headers: { origin } })
    expect(keys.headers.get('access-control-allow-origin')).toBe('*')
    // Nothing else opens to other origins: the account and the licenses list keep Payload's own list.
    for (const path of ['/api/users/me', '/api/licenses', '/api/licenses/1/activations']) {
      const other = await fetch(`${service.url}${path}`, { headers: { origin } })
      expect(other.headers.get('access-control-allow-origin')).toBeNull()
    }
  })

  it('the CLI checks a key: prints the code, exits 0 for valid and 1 otherwise', async () => {
    const license = await grantLicense(payload(), owner, 'ultimate', 'active')
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'license-cli-'))
    const cli = (key: string) =>
      promisify(execFile)(
        process.execPath,
        ['--import', 'tsx', 'packages/license-client/src/cli.ts', 'check', '--key', key, '--service', service.url],
        { cwd: root, env: { ...process.env, XDG_CONFIG_HOME: home } },
      ).then(
        ({ stdout }) => ({ code: 0, stdout: stdout.trim() }),
        (error: { code: number; stdout: string }) => ({ code: error.code, stdout: error.stdout.trim() }),
      )
    expect(await cli(license.key)).toEqual({ code: 0, stdout: 'VALID' })
    expect(fs.statSync(path.join(home, 'license-client', 'state.json')).mode & 0o777).toBe(0o600)
    expect(await cli('KIT-00000-00000-00000-00000')).toEqual({ code: 1, stdout: 'NOT_FOUND' })
    fs.rmSync(home, { recursive: true })
  })
})

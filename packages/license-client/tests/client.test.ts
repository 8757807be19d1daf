import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

import { base64url, SignJWT, UnsecuredJWT } from 'jose'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'

import {
  CLOCK_ROLLBACK_TOLERANCE_MS,
  createLicenseClient,
  fileStorage,
  KEY_REFETCH_INTERVAL_MS,
  LicenseClientError,
  type LicenseClientOptions,
  memoryStorage,
  type PublicJwkSet,
} from '../src/index'
import { newSigningKey, type ServiceDouble, type SigningKey, startServiceDouble } from './service-double'

/**
 * The client against the service's documented test vectors and against a double of the service that
 * misbehaves on purpose. Its happy paths against the real service are in tests/int/license-client.test.ts.
 */

const DAY = 24 * 3600 * 1000
const docs = fs.readFileSync(path.join(import.meta.dirname, '../../../docs/LICENSING.md'), 'utf8')
const vectorSection = docs.slice(docs.indexOf('#### Test vectors'))
const blocks = [...vectorSection.matchAll(/```(?:json|text)\n([\s\S]*?)\n```/g)].map((match) => match[1]!.trim())
// In the order the section shows them: PEM, private JWK, public key set, header, payload, token.
const vector = {
  publicKeys: JSON.parse(blocks[2]!) as PublicJwkSet & { keys: { kid: string; x: string }[] },
  header: JSON.parse(blocks[3]!) as Record<string, unknown>,
  payload: JSON.parse(blocks[4]!) as { iat: number; exp: number; iss: string; license: string; fpr: string },
  token: blocks[5]!,
}

describe('the documented test vector', () => {
  const at = (seconds: number) =>
    createLicenseClient({
      serviceUrl: vector.payload.iss,
      publicKeys: vector.publicKeys,
      storage: memoryStorage(),
      now: () => seconds * 1000,
      fetch: () => Promise.reject(new Error('pinned keys: nothing may be fetched')),
    })

  it('verifies as genuine, with the documented claims, while it lives', async () => {
    expect(vector.token.split('.')).toHaveLength(3)
    const result = await at(vector.payload.iat + 60).verifyCertificate(vector.token)
    expect(result).toEqual({ genuine: true, code: 'VALID', claims: vector.payload })
  })

  it('is genuine but EXPIRED from its exp on', async () => {
    const result = await at(vector.payload.exp).verifyCertificate(vector.token)
    expect(result.genuine).toBe(true)
    expect(result.code).toBe('EXPIRED')
  })

  it('refuses it for another issuer, a tampered payload or a tampered signature', async () => {
    const other = createLicenseClient({
      serviceUrl: 'https://other.example',
      publicKeys: vector.publicKeys,
      storage: memoryStorage(),
      now: () => vector.payload.iat * 1000,
    })
    expect((await other.verifyCertificate(vector.token)).code).toBe('NOT_GENUINE')
    const [header, payload, signature] = vector.token.split('.') as [string, string, string]
    const richer = base64url.encode(
      JSON.stringify({ ...vector.payload, features: ['basic', 'templates', 'support', 'api'] }),
    )
    const flipped = signature.slice(0, 10) + (signature[10] === 'A' ? 'B' : 'A') + signature.slice(11)
    const client = at(vector.payload.iat + 60)
    for (const token of [
      `${header}.${richer}.${signature}`,
      `${header}.${payload}.${flipped}`,
      `${header}.${payload}.`,
    ])
      expect(await client.verifyCertificate(token)).toEqual({ genuine: false, code: 'NOT_GENUINE' })
  })

  it('refuses alg none and an HMAC token keyed with the public key', async () => {
    const client = at(vector.payload.iat + 60)
    const none = new UnsecuredJWT(vector.payload).encode()
    const x = vector.publicKeys.keys[0]!.x
    const hmac = await new SignJWT(vector.payload)
      .setProtectedHeader({ alg: 'HS256', kid: vector.publicKeys.keys[0]!.kid, typ: 'JWT' })
      .sign(base64url.decode(x))
    expect(await client.verifyCertificate(none)).toEqual({ genuine: false, code: 'NOT_GENUINE' })
    expect(await client.verifyCertificate(hmac)).toEqual({ genuine: false, code: 'NOT_GENUINE' })
  })
})

describe('against a service double', () => {
  let double: ServiceDouble
  let first: SigningKey
  let clock = Date.now()
  const KEY = 'KIT-AAAAA-BBBBB-CCCCC-DDDDD'

  beforeAll(async () => {
    first = await newSigningKey('key-one')
    double = await startServiceDouble([first])
  })
  afterAll(() => double.close())
  beforeEach(() => {
    double.misbehave = null
    double.keys = [first]
    double.verdicts.clear()
    double.requests.length = 0
    clock = Date.now()
    double.clock = () => Math.floor(clock / 1000)
  })

  const client = (options: Partial<LicenseClientOptions> = {}) =>
    createLicenseClient({
      serviceUrl: double.url,
      storage: memoryStorage(),
      fingerprint: 'host:test;install:1',
      timeoutMs: 500,
      now: () => clock,
      ...options,
    })
  const validations = () => double.requests.filter((line) => line.endsWith('/validate')).length
  const keyFetches = () => double.requests.filter((line) => line.endsWith('/public-key')).length

  it('checks online, then offline from the stored certificate: valid, grace, expired', async () => {
    double.verdicts.set(KEY, 'VALID')
    const app = client({ graceDays: 3 })
    const online = await app.check({ key: ` ${KEY.toLowerCase()} ` })
    expect(online).toMatchObject({ status: 'valid', code: 'VALID', source: 'online' })
    expect(online.claims).toMatchObject({ license: KEY, fpr: 'host:test;install:1', features: ['basic', 'templates'] })

    double.misbehave = 'error'
    expect(await app.check()).toMatchObject({ status: 'valid', code: 'VALID', source: 'stored' })
    clock += 14 * DAY
    expect(await app.check()).toMatchObject({ status: 'grace', code: 'GRACE', source: 'stored' })
    clock += 3 * DAY
    expect(await app.check()).toMatchObject({ status: 'invalid', code: 'EXPIRED', source: 'stored' })
    // Online again: a new certificate, valid again.
    double.misbehave = null
    expect(await app.check()).toMatchObject({ status: 'valid', code: 'VALID', source: 'online' })
  })

  it.each(['garbage', 'html', 'error', 'rate-limited', 'huge'] as const)(
    'a service answering %s is treated as unreachable: the stored certificate decides',
    async (misbehaviour) => {
      double.verdicts.set(KEY, 'VALID')
      const app = client()
      await app.check({ key: KEY })
      double.misbehave = misbehaviour
      expect(await app.check()).toMatchObject({ status: 'valid', code: 'VALID', source: 'stored' })
    },
  )

  it('a service that hangs times out, then the stored certificate decides', async () => {
    double.verdicts.set(KEY, 'VALID')
    const app = client({ timeoutMs: 300 })
    await app.check({ key: KEY })
    double.misbehave = 'hang'
    const started = performance.now()
    expect(await app.check()).toMatchObject({ status: 'valid', source: 'stored' })
    const took = performance.now() - started
    expect(took).toBeGreaterThanOrEqual(290)
    expect(took).toBeLessThan(5_000)
  })

  it('with nothing stored and the service unreachable, answers NO_CERTIFICATE', async () => {
    double.verdicts.set(KEY, 'VALID')
    double.misbehave = 'error'
    expect(await client().check({ key: KEY })).toEqual({ status: 'invalid', code: 'NO_CERTIFICATE', source: 'stored' })
    expect(await client().check()).toEqual({ status: 'invalid', code: 'NO_ACTIVATION', source: 'stored' })
  })

  it('a revocation online drops the stored certificate: the app cannot fall back to it offline', async () => {
    double.verdicts.set(KEY, 'VALID')
    const app = client()
    await app.check({ key: KEY })
    double.verdicts.set(KEY, 'REVOKED')
    expect(await app.check()).toEqual({ status: 'invalid', code: 'REVOKED', source: 'online' })
    double.misbehave = 'error'
    expect(await app.check()).toEqual({ status: 'invalid', code: 'NO_CERTIFICATE', source: 'stored' })
  })

  it('a certificate the service did not sign (a forged answer) is refused and not stored', async () => {
    double.verdicts.set(KEY, 'VALID')
    const app = client()
    await app.check({ key: KEY })
    double.misbehave = 'forged'
    expect(await app.check()).toEqual({ status: 'invalid', code: 'NOT_GENUINE', source: 'online' })
    double.misbehave = 'error'
    // The genuine certificate stored before is still the one used offline.
    expect(await app.check()).toMatchObject({ status: 'valid', source: 'stored' })
  })

  it('a certificate moved to another machine, or for another license, is refused', async () => {
    double.verdicts.set(KEY, 'VALID')
    const storage = memoryStorage()
    await client({ storage }).check({ key: KEY })
    double.misbehave = 'error'
    // The same storage, copied to a machine with another fingerprint.
    const moved = client({ storage, fingerprint: 'host:other;install:1' })
    expect(await moved.check()).toEqual({ status: 'invalid', code: 'NOT_GENUINE', source: 'stored' })
    // A genuine certificate of another license, handed to this installation.
    const other = 'KIT-3H7QK-9M2XD-T4WPB-R8NLC' // a second license the double signs for
    double.misbehave = null
    double.verdicts.set(other, 'VALID')
    const elsewhereStorage = memoryStorage()
    expect(await client({ storage: elsewhereStorage }).check({ key: other })).toMatchObject({ code: 'VALID' })
    const stored = (await elsewhereStorage.get(`license-client ${double.url} license ${other}`)) ?? '{}'
    const { certificate } = JSON.parse(stored) as { certificate: string }
    expect(certificate.split('.')).toHaveLength(3)
    const app = client({ storage: memoryStorage() })
    await app.check({ key: KEY })
    expect(await app.verifyCertificate(certificate)).toEqual({ genuine: false, code: 'NOT_GENUINE' })
  })

  it('a clock turned back more than an hour answers CLOCK_ROLLBACK, online or offline, without asking', async () => {
    double.verdicts.set(KEY, 'VALID')
    const app = client()
    await app.check({ key: KEY })
    const asked = validations()
    clock -= CLOCK_ROLLBACK_TOLERANCE_MS / 2
    expect(await app.check()).toMatchObject({ status: 'valid', source: 'online' })
    clock -= CLOCK_ROLLBACK_TOLERANCE_MS
    expect(await app.check()).toEqual({ status: 'invalid', code: 'CLOCK_ROLLBACK', source: 'stored' })
    double.misbehave = 'error'
    expect(await app.check()).toEqual({ status: 'invalid', code: 'CLOCK_ROLLBACK', source: 'stored' })
    expect(validations()).toBe(asked + 1)
    // A certificate issued later than the local clock moves the latest time seen too.
    clock += 2 * CLOCK_ROLLBACK_TOLERANCE_MS
    double.misbehave = null
    double.clock = () => Math.floor((clock + 3 * CLOCK_ROLLBACK_TOLERANCE_MS) / 1000)
    await app.check()
    double.misbehave = 'error'
    expect((await app.check()).code).toBe('CLOCK_ROLLBACK')
  })

  it('an unknown kid fetches the key set again at most once per 5 minutes, whatever the kid', async () => {
    double.verdicts.set(KEY, 'VALID')
    const app = client()
    await app.check({ key: KEY })
    expect(keyFetches()).toBe(1)
    // The service rotates: a new key first, the old one still published.
    const second = await newSigningKey('key-two')
    double.keys = [second, first]
    clock += KEY_REFETCH_INTERVAL_MS
    expect(await app.check()).toMatchObject({ status: 'valid', source: 'online', code: 'VALID' })
    expect(keyFetches()).toBe(2)
    // A third key within 5 minutes of that fetch: not fetched, refused.
    const third = await newSigningKey('key-three')
    double.keys = [third, second]
    clock += KEY_REFETCH_INTERVAL_MS - 1000
    expect(await app.check()).toMatchObject({ code: 'NOT_GENUINE' })
    expect(await app.check()).toMatchObject({ code: 'NOT_GENUINE' })
    expect(keyFetches()).toBe(2)
    clock += 1000
    expect(await app.check()).toMatchObject({ code: 'VALID', source: 'online' })
    expect(keyFetches()).toBe(3)
  })

  it('pinned keys are never fetched, and another key is refused', async () => {
    double.verdicts.set(KEY, 'VALID')
    const pinned = client({ publicKeys: [first.jwk] })
    expect(await pinned.check({ key: KEY })).toMatchObject({ code: 'VALID', source: 'online' })
    double.keys = [await newSigningKey('key-rotated'), first]
    clock += KEY_REFETCH_INTERVAL_MS * 10
    expect(await pinned.check()).toMatchObject({ code: 'NOT_GENUINE' })
    expect(keyFetches()).toBe(0)
  })

  it('activates, refuses past the limit with the service code, and deactivates', async () => {
    double.verdicts.set(KEY, 'VALID')
    const one = client({ fingerprint: 'install:one' })
    const { activation, check } = await one.activate(KEY, { label: 'laptop' })
    expect(activation).toMatchObject({ fingerprint: 'install:one', activations: { used: 1, limit: 2 } })
    expect(check).toMatchObject({ status: 'valid', code: 'VALID', source: 'online' })
    await client({ fingerprint: 'install:two' }).activate(KEY)
    const refused = await client({ fingerprint: 'install:three' })
      .activate(KEY)
      .catch((error: unknown) => error)
    expect(refused).toBeInstanceOf(LicenseClientError)
    expect(refused).toMatchObject({ code: 'activation_limit_reached', status: 409, details: { used: 2, limit: 2 } })

    await one.deactivate()
    expect(double.activations.size).toBe(1)
    expect(await one.check()).toEqual({ status: 'invalid', code: 'NO_ACTIVATION', source: 'stored' })
    expect(await one.canUpdateTo({ version: '1.0.0', publishedAt: new Date() })).toEqual({
      allowed: false,
      reason: 'NO_CERTIFICATE',
    })
  })

  it('activating an unknown key, or with the service down, throws and stores nothing', async () => {
    const app = client()
    await expect(app.activate(KEY)).rejects.toMatchObject({ code: 'license_not_found', status: 404 })
    const down = client({ serviceUrl: 'http://127.0.0.1:9' })
    await expect(down.activate(KEY)).rejects.toMatchObject({ code: 'unreachable' })
    expect(await app.check()).toMatchObject({ code: 'NO_ACTIVATION' })
  })

  it('deactivation refused by the daily limit throws with Retry-After and keeps the activation', async () => {
    const limited = 'KIT-LIMIT-ED'
    double.verdicts.set(limited, 'VALID')
    const app = client()
    await app.activate(limited)
    await expect(app.deactivate()).rejects.toMatchObject({ code: 'deactivation_limit', retryAfter: 3600 })
    expect(await app.check()).toMatchObject({ code: 'VALID' })
  })

  it('an activation ended elsewhere (404 activation_not_found) deactivates here too', async () => {
    double.verdicts.set(KEY, 'VALID')
    const app = client()
    await app.activate(KEY)
    double.activations.clear()
    await app.deactivate()
    expect(await app.check()).toMatchObject({ code: 'NO_ACTIVATION' })
  })

  it('canUpdateTo reads the window of the stored genuine certificate', async () => {
    double.verdicts.set(KEY, 'VALID')
    const app = client()
    await app.check({ key: KEY })
    expect(await app.canUpdateTo({ version: '2.9.0', publishedAt: '2030-01-01T00:00:00Z' })).toEqual({
      allowed: true,
      reason: 'WITHIN_MAJOR',
    })
    expect(await app.canUpdateTo({ version: 'v3.0.0', publishedAt: new Date() })).toEqual({
      allowed: false,
      reason: 'NEWER_MAJOR',
    })
    await expect(app.canUpdateTo({ version: 'three', publishedAt: new Date() })).rejects.toThrow(TypeError)
  })

  it('keeps one service apart from another in the same storage', async () => {
    double.verdicts.set(KEY, 'VALID')
    const storage = memoryStorage()
    await client({ storage }).check({ key: KEY })
    const elsewhere = client({ storage, serviceUrl: 'http://127.0.0.2:9' })
    expect(await elsewhere.check()).toMatchObject({ code: 'NO_ACTIVATION' })
  })

  it('refuses a fingerprint the service would refuse before sending anything', async () => {
    await expect(client({ fingerprint: ' spaced ' }).check({ key: KEY })).rejects.toThrow(TypeError)
    await expect(client({ fingerprint: 'x'.repeat(201) }).check({ key: KEY })).rejects.toThrow(TypeError)
    expect(validations()).toBe(0)
  })

  it('keeps its state in a 0600 JSON file that a restarted app reads back, and survives a corrupt file', async () => {
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'license-client-'))
    double.verdicts.set(KEY, 'VALID')
    await client({ storage: fileStorage(directory), fingerprint: undefined }).check({ key: KEY })
    const file = path.join(directory, 'state.json')
    expect(fs.statSync(file).mode & 0o777).toBe(0o600)
    double.misbehave = 'error'
    // A new process: the default fingerprint (host and install id) is read back from the file.
    expect(await client({ storage: fileStorage(directory), fingerprint: undefined }).check()).toMatchObject({
      code: 'VALID',
      source: 'stored',
    })
    fs.writeFileSync(file, '{not json')
    expect(await client({ storage: fileStorage(directory), fingerprint: undefined }).check()).toMatchObject({
      code: 'NO_ACTIVATION',
    })
    fs.rmSync(directory, { recursive: true })
  })
})

import './../support/billing-env'

import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

import { createLocalJWKSet, decodeProtectedHeader, type JSONWebKeySet, jwtVerify, SignJWT } from 'jose'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'

import { RATE_LIMITS } from '../../src/auth/rate-limit'
import { productionProblems } from '../../src/config/env'
import { parseSigningKeys } from '../../src/config/signing-key'
import {
  CERTIFICATE_MAX_TTL_SECONDS,
  type CertificateClaims,
  licenseCertificates,
  publicJwkOf,
} from '../../src/licensing/certificates'
import { generateLicenseKey } from '../../src/licensing/keys'
import type { License } from '../../src/payload-types'
import { PRICES } from '../support/billing-env'
import { COMPLETE_PRODUCTION_ENV } from '../support/production-env'
import { buy, rows, seedStandInPlans } from '../support/billing'
import { api, createUser, SERVER_URL, type TestUser, usePayload } from '../support/payload'
import { recordOwnRun } from '../support/queries'

const payload = usePayload()

const DAY_MS = 24 * 60 * 60 * 1000
const NOT_FOUND_BODY = {
  valid: false,
  code: 'NOT_FOUND',
  plan: null,
  features: [],
  validUntil: null,
  updates: null,
  certificate: null,
}

type Validation = {
  valid: boolean
  code: string
  plan: string | null
  features: string[]
  validUntil: string | null
  certificate: string | null
}
type ErrorAnswer = { errors: { code: string; message: string }[] }

const validate = (body: unknown, address?: string) =>
  api<Validation & ErrorAnswer>('POST', '/licenses/validate', { body, ...(address ? { address } : {}) })

/** Every logger call of the file, to prove no private key material is ever logged. */
const logged: unknown[] = []
let jwks: JSONWebKeySet
let support: TestUser

beforeAll(async () => {
  for (const level of ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const) {
    const original: (...rest: unknown[]) => void = payload().logger[level].bind(payload().logger)
    vi.spyOn(payload().logger, level).mockImplementation((...args: unknown[]) => {
      logged.push(args)
      return original(...args)
    })
  }
  await seedStandInPlans(payload())
  support = await createUser(payload(), 'support')
  jwks = (await api<JSONWebKeySet>('GET', '/licenses/public-key')).body
})

const planId = async (slug: string) =>
  (await payload().find({ collection: 'plans', where: { slug: { equals: slug } }, limit: 1, depth: 0 })).docs[0]!.id

/** A license as staff would grant it, in any state. */
const grant = async (slug: string, data: Partial<Pick<License, 'status' | 'validUntil'>> = {}) =>
  payload().create({
    collection: 'licenses',
    data: {
      key: generateLicenseKey(),
      plan: await planId(slug),
      source: 'manual',
      status: 'active',
      seats: 1,
      ...data,
    },
  })

const licenseOf = async (user: TestUser) => (await rows(payload(), 'licenses', { user: { equals: user.user.id } }))[0]!

const verify = (certificate: string) =>
  jwtVerify(certificate, createLocalJWKSet(jwks), { issuer: SERVER_URL, algorithms: ['EdDSA'] })

/** The database statements `run` makes in its own async context, by what they touch, and the clients it checked out beyond single statements. */
const countQueries = async (run: () => Promise<unknown>) => {
  const { statements: texts, checkouts } = await recordOwnRun(payload(), run)
  return {
    license: texts.filter((text) => /"?licenses"?|"?plans"?/.test(text) && !text.includes('rate_limits')).length,
    rateLimit: texts.filter((text) => text.includes('rate_limits')).length,
    other: texts.filter((text) => !/"?licenses"?|"?plans"?|rate_limits/.test(text)),
    checkouts,
  }
}

describe('POST /api/licenses/validate', () => {
  it('VALID for an active one-time license: plan, features, no end, and a certificate that verifies offline', async () => {
    const buyer = await createUser(payload(), 'customer')
    await buy(PRICES.ultimate, { as: buyer })
    const license = await licenseOf(buyer)
    const before = Math.floor(Date.now() / 1000)
    const response = await validate({ key: license.key })
    expect(response.status).toBe(200)
    expect(response.headers.get('cache-control')).toBe('no-store')
    expect(response.body).toMatchObject({
      valid: true,
      code: 'VALID',
      plan: 'ultimate',
      features: ['basic', 'templates', 'support', 'api', 'advanced'],
      validUntil: null,
    })

    const { payload: claims, protectedHeader } = await verify(response.body.certificate!)
    expect(protectedHeader).toMatchObject({ alg: 'EdDSA', kid: jwks.keys[0]!.kid })
    expect(claims).toMatchObject({
      license: license.key,
      plan: 'ultimate',
      features: response.body.features,
      iss: SERVER_URL,
    })
    expect(claims).not.toHaveProperty('fpr')
    expect(claims.iat).toBeGreaterThanOrEqual(before)
    expect(claims.exp! - claims.iat!).toBe(CERTIFICATE_MAX_TTL_SECONDS)
  })

  it('VALID for an active subscription license; the certificate never outlives 14 days or the license', async () => {
    const buyer = await createUser(payload(), 'customer')
    await buy(PRICES.proMonthly, { as: buyer })
    const license = await licenseOf(buyer)
    expect(license.source).toBe('subscription')
    const response = await validate({ key: license.key })
    expect(response.body).toMatchObject({ valid: true, code: 'VALID', plan: 'pro', validUntil: license.validUntil })
    expect(new Date(response.body.validUntil!).getTime()).toBeGreaterThan(Date.now() + 14 * DAY_MS)
    const { payload: claims } = await verify(response.body.certificate!)
    expect(claims.exp! * 1000).toBeLessThanOrEqual(Date.now() + 14 * DAY_MS)
    expect(claims.exp! * 1000).toBeLessThanOrEqual(new Date(license.validUntil!).getTime())

    // A license ending in two days: the certificate ends with it.
    const ending = await grant('pro', { validUntil: new Date(Date.now() + 2 * DAY_MS).toISOString() })
    const short = await validate({ key: ending.key })
    expect(short.body.code).toBe('VALID')
    const { payload: shortClaims } = await verify(short.body.certificate!)
    expect(shortClaims.exp).toBe(Math.floor(new Date(ending.validUntil!).getTime() / 1000))
  })

  it('binds the certificate to the installation fingerprint when one is given', async () => {
    const license = await grant('standard')
    const fingerprint = 'host:build-7f3a;install:0b1c2d'
    const response = await validate({ key: license.key, fingerprint })
    const { payload: claims } = await verify(response.body.certificate!)
    expect(claims.fpr).toBe(fingerprint)
  })

  it('forgives surrounding spaces and lower case in a key', async () => {
    const license = await grant('standard')
    const response = await validate({ key: `  ${license.key.toLowerCase()}\n` })
    expect(response.body).toMatchObject({ code: 'VALID', plan: 'standard' })
    expect((await verify(response.body.certificate!)).payload.license).toBe(license.key)
  })

  it.each([
    ['suspended', 'SUSPENDED'],
    ['revoked', 'REVOKED'],
    ['expired', 'EXPIRED'],
  ] as const)('%s license: %s, with its plan, no features and no certificate', async (status, code) => {
    const license = await grant('ultimate', { status })
    const response = await validate({ key: license.key })
    expect(response.status).toBe(200)
    expect(response.body).toEqual({
      valid: false,
      code,
      plan: 'ultimate',
      features: [],
      validUntil: null,
      updates: null,
      certificate: null,
    })
  })

  it('EXPIRED for an active license past its validity end, before the scheduled job marks it', async () => {
    const end = new Date(Date.now() - 1000).toISOString()
    const license = await grant('pro', { validUntil: end })
    expect(license.status).toBe('active')
    const response = await validate({ key: license.key })
    expect(response.body).toEqual({
      valid: false,
      code: 'EXPIRED',
      plan: 'pro',
      features: [],
      validUntil: end,
      updates: null,
      certificate: null,
    })
  })

  it('support revokes the license with a reason: the next validation answers REVOKED', async () => {
    const buyer = await createUser(payload(), 'customer')
    await buy(PRICES.standard, { as: buyer })
    const license = await licenseOf(buyer)
    expect((await validate({ key: license.key })).body.code).toBe('VALID')
    const revoke = await api('PATCH', `/licenses/${license.id}`, {
      as: support,
      body: { override: 'revoked', overrideReason: 'chargeback by phone' },
    })
    expect(revoke.status).toBe(200)
    expect((await validate({ key: license.key })).body).toMatchObject({
      valid: false,
      code: 'REVOKED',
      certificate: null,
    })
  })

  it.each([
    ['an unknown key', generateLicenseKey()],
    ['a malformed key', 'hello-world'],
    ['an empty key', ''],
    ['a key with a wrong character', 'KIT-ILOU0-00000-00000-00000'],
    ['a 64-character key', `KIT-${'A'.repeat(60)}`],
  ])('NOT_FOUND for %s, with the same body', async (_what, key) => {
    const response = await validate({ key })
    expect(response.status).toBe(200)
    expect(response.body).toEqual(NOT_FOUND_BODY)
  })

  it('looks the key up with its plan in one statement by the unique index, for a license, an unknown and a malformed key', async () => {
    const license = await grant('ultimate')
    const known = await countQueries(() => validate({ key: license.key }))
    const unknown = await countQueries(() => validate({ key: generateLicenseKey() }))
    const malformed = await countQueries(() => validate({ key: 'x'.repeat(64) }))
    expect(known).toEqual({ license: 1, rateLimit: 2, other: [], checkouts: 0 })
    expect(unknown).toEqual({ license: 1, rateLimit: 2, other: [], checkouts: 0 })
    expect(malformed).toEqual({ license: 1, rateLimit: 2, other: [], checkouts: 0 })
  })

  it.each([
    ['no key', {}],
    ['a number as key', { key: 12345 }],
    ['a null key', { key: null }],
    ['a key over 64 characters', { key: `KIT-${'A'.repeat(61)}` }],
    ['a 5,000-character key', { key: 'K'.repeat(5000) }],
    ['a fingerprint over 200 characters', { key: 'KIT-00000-00000-00000-00000', fingerprint: 'f'.repeat(201) }],
    ['an empty fingerprint', { key: 'KIT-00000-00000-00000-00000', fingerprint: '' }],
    ['a fingerprint that is not a string', { key: 'KIT-00000-00000-00000-00000', fingerprint: { id: 1 } }],
    ['an array body', ['KIT-00000-00000-00000-00000']],
    ['a body that is not JSON', '{"key": '],
  ])('400 invalid_request for %s', async (_what, body) => {
    const response = await validate(body)
    expect(response.status).toBe(400)
    expect(response.body.errors[0]).toMatchObject({ code: 'invalid_request', message: expect.any(String) })
  })

  it('refuses an over-long key before any lookup or rate-limit row', async () => {
    expect(await countQueries(() => validate({ key: 'K'.repeat(5000) }))).toEqual({
      license: 0,
      rateLimit: 0,
      other: [],
      checkouts: 0,
    })
  })

  it('400 invalid_request for a body that is not sent as JSON', async () => {
    const response = await api('POST', '/licenses/validate', {
      body: '{"key":"KIT-00000-00000-00000-00000"}',
      headers: { 'content-type': 'text/plain' },
    })
    expect(response.status).toBe(400)
    expect(response.body.errors[0].code).toBe('invalid_request')
  })
})

describe('rate limits', () => {
  const expectLimited = (response: { status: number; body: unknown; headers: Headers }) => {
    expect(response.status).toBe(429)
    expect(response.body).toEqual({
      errors: [
        {
          code: 'rate_limited',
          message: expect.stringMatching(/^Too many license validations\. Try again in \d+ seconds\.$/),
        },
      ],
    })
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0)
  }

  it(`per key: ${RATE_LIMITS['license_validate:key'].points} validations of one key from any addresses, then 429`, async () => {
    const license = await grant('standard')
    for (let attempt = 0; attempt < RATE_LIMITS['license_validate:key'].points; attempt += 1) {
      expect((await validate({ key: license.key })).status).toBe(200)
    }
    const limited = await validate({ key: license.key })
    expectLimited(limited)
    // The same key spelt differently is the same key; another key is not limited.
    expectLimited(await validate({ key: ` ${license.key.toLowerCase()}` }))
    expect((await validate({ key: (await grant('standard')).key })).body.code).toBe('VALID')
  })

  it(`per address: ${RATE_LIMITS['license_validate:ip'].points} validations of any keys from one address, then 429`, async () => {
    const address = '198.51.100.77'
    for (let attempt = 0; attempt < RATE_LIMITS['license_validate:ip'].points; attempt += 1) {
      expect((await validate({ key: generateLicenseKey() }, address)).status).toBe(200)
    }
    expectLimited(await validate({ key: (await grant('standard')).key }, address))
    expect((await validate({ key: generateLicenseKey() }, '198.51.100.78')).status).toBe(200)
  })
})

describe('GET /api/licenses/public-key', () => {
  it('is a JWK Set of one Ed25519 public key with a kid, cacheable, without the private half', async () => {
    const response = await api<JSONWebKeySet>('GET', '/licenses/public-key')
    expect(response.status).toBe(200)
    expect(response.headers.get('cache-control')).toBe('public, max-age=3600')
    expect(response.body.keys).toHaveLength(1)
    const [key] = response.body.keys
    expect(Object.keys(key!).sort()).toEqual(['alg', 'crv', 'kid', 'kty', 'use', 'x'])
    expect(key).toMatchObject({
      kty: 'OKP',
      crv: 'Ed25519',
      alg: 'EdDSA',
      use: 'sig',
      kid: expect.stringMatching(/^[\w-]{43}$/),
    })
  })

  it('a tampered certificate, or one signed by another key with the same kid, fails verification', async () => {
    const license = await grant('standard')
    const certificate = (await validate({ key: license.key })).body.certificate!
    const [header, body, signature] = certificate.split('.')
    const claims = JSON.parse(Buffer.from(body!, 'base64url').toString()) as Record<string, unknown>
    const forged = Buffer.from(
      JSON.stringify({ ...claims, plan: 'pro', features: ['basic', 'api', 'advanced'] }),
    ).toString('base64url')
    await expect(verify(`${header}.${forged}.${signature}`)).rejects.toMatchObject({
      code: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED',
    })
    const flipped = `${signature!.slice(0, 10)}${signature![10] === 'A' ? 'B' : 'A'}${signature!.slice(11)}`
    await expect(verify(`${header}.${body}.${flipped}`)).rejects.toMatchObject({
      code: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED',
    })

    const impostor = crypto.generateKeyPairSync('ed25519').privateKey
    const kid = decodeProtectedHeader(certificate).kid!
    const signedElsewhere = await new SignJWT(claims).setProtectedHeader({ alg: 'EdDSA', kid }).sign(impostor)
    await expect(verify(signedElsewhere)).rejects.toMatchObject({ code: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED' })
  })
})

describe('the signing key', () => {
  const pair = () => crypto.generateKeyPairSync('ed25519')
  const pemOf = (key: crypto.KeyObject) => key.export({ type: 'pkcs8', format: 'pem' }) as string

  it('loads from a PKCS#8 PEM (real or escaped newlines) and from a private JWK, to the same public key', () => {
    const { privateKey } = pair()
    const pem = pemOf(privateKey)
    const jwk = JSON.stringify(privateKey.export({ format: 'jwk' }))
    const expected = publicJwkOf(privateKey)
    expect(parseSigningKeys(pem).map(publicJwkOf)).toEqual([expected])
    expect(parseSigningKeys(pem.replace(/\n/g, '\\n')).map(publicJwkOf)).toEqual([expected])
    expect(parseSigningKeys(`\n${jwk}\n`).map(publicJwkOf)).toEqual([expected])
  })

  it('refuses anything but an Ed25519 private key, without quoting it', () => {
    const rsa = pemOf(crypto.generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey)
    const publicOnly = JSON.stringify(pair().publicKey.export({ format: 'jwk' }))
    const spki = pair().publicKey.export({ type: 'spki', format: 'pem' }) as string
    for (const value of [rsa, publicOnly, spki, 'not a key', '{"kty":"OKP"']) {
      expect(() => parseSigningKeys(value)).toThrow(
        /^LICENSE_SIGNING_KEY is not an Ed25519 private key \(PKCS#8 PEM or private JWK\)$/,
      )
    }
  })

  describe('generated outside production', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kit-license-key-'))
    afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))
    const settings = {
      configured: undefined,
      generatedFile: path.join(dir, 'nested', 'license-signing-key.pem'),
      isProduction: false,
      issuer: SERVER_URL,
    }

    it('into the data dir with mode 0600, once, logging only its path; kept across restarts', () => {
      const logger = { info: vi.fn() }
      const first = licenseCertificates(settings)(logger).publicKeys()
      expect(fs.statSync(settings.generatedFile).mode & 0o777).toBe(0o600)
      expect(logger.info).toHaveBeenCalledTimes(1)
      expect(logger.info).toHaveBeenCalledWith(
        { file: settings.generatedFile },
        'generated a development license signing key',
      )
      expect(fs.readdirSync(path.dirname(settings.generatedFile))).toEqual(['license-signing-key.pem'])

      const restarted = licenseCertificates(settings)(logger).publicKeys()
      expect(restarted).toEqual(first)
      expect(logger.info).toHaveBeenCalledTimes(1)
    })

    it('never in production: without LICENSE_SIGNING_KEY it refuses to sign', () => {
      const production = licenseCertificates({
        ...settings,
        generatedFile: path.join(dir, 'prod.pem'),
        isProduction: true,
      })
      expect(() => production({ info: vi.fn() })).toThrow('LICENSE_SIGNING_KEY is not set')
      expect(fs.existsSync(path.join(dir, 'prod.pem'))).toBe(false)
    })

    it('uses the configured key over any file', async () => {
      const { privateKey } = pair()
      const configured = licenseCertificates({ ...settings, configured: pemOf(privateKey) })({ info: vi.fn() })
      expect(configured.publicKeys().keys[0]).toEqual(publicJwkOf(privateKey))
      const token = await configured.sign(
        { license: 'KIT-00000-00000-00000-00000', plan: 'standard', features: ['basic'] },
        null,
      )
      const { payload: claims } = await jwtVerify(token, createLocalJWKSet(configured.publicKeys()))
      expect(claims.exp! - claims.iat!).toBe(CERTIFICATE_MAX_TTL_SECONDS)
    })
  })

  it('no private key material in any response or log line of this file', async () => {
    const file = path.resolve('.data/test/license-signing-key.pem')
    const [privateKey] = parseSigningKeys(fs.readFileSync(file, 'utf8'))
    if (!privateKey) throw new Error('no development key')
    expect(publicJwkOf(privateKey).kid).toBe(jwks.keys[0]!.kid)
    const { d } = privateKey.export({ format: 'jwk' })
    const pemBody = fs.readFileSync(file, 'utf8').split('\n')[1]!
    const responses = [
      JSON.stringify((await api('GET', '/licenses/public-key')).body),
      JSON.stringify((await validate({ key: (await grant('ultimate')).key })).body),
      JSON.stringify((await validate({ key: 'nope' })).body),
    ]
    const everything = [...responses, JSON.stringify(logged)]
    for (const text of everything) {
      expect(text).not.toContain(d!)
      expect(text).not.toContain(pemBody)
      expect(text).not.toContain('PRIVATE KEY')
    }
  })
})

describe('a set of signing keys (rotation)', () => {
  const ed25519 = () => crypto.generateKeyPairSync('ed25519').privateKey
  const pemOf = (key: crypto.KeyObject) => key.export({ type: 'pkcs8', format: 'pem' }) as string
  const jwkOf = (key: crypto.KeyObject) => key.export({ format: 'jwk' })
  const signerOf = (configured: string) =>
    licenseCertificates({
      configured,
      generatedFile: path.join(os.tmpdir(), 'kit-never-written.pem'),
      isProduction: true,
      issuer: SERVER_URL,
    })({ info: vi.fn() })
  const CLAIMS: CertificateClaims = { license: 'KIT-00000-00000-00000-00000', plan: 'standard', features: ['basic'] }
  const verifyWith = (token: string, keys: { keys: unknown[] }) =>
    jwtVerify(token, createLocalJWKSet(keys as JSONWebKeySet), { issuer: SERVER_URL, algorithms: ['EdDSA'] })
  /** Every piece of private material of `keys`, none of which an error may quote. */
  const secretsOf = (...keys: crypto.KeyObject[]) => keys.flatMap((key) => [jwkOf(key).d!, pemOf(key).split('\n')[1]!])

  it('a JWK Set and PEM blocks one after another parse in order (escaped newlines too; a kid in a JWK is ignored)', () => {
    const keys = [ed25519(), ed25519(), ed25519()]
    const expected = keys.map(publicJwkOf)
    const set = JSON.stringify({
      keys: keys.map((key) => ({ ...jwkOf(key), kid: 'chosen-by-the-seller', use: 'sig', alg: 'EdDSA' })),
    })
    expect(parseSigningKeys(set).map(publicJwkOf)).toEqual(expected)
    const pems = keys.map(pemOf).join('')
    expect(parseSigningKeys(pems).map(publicJwkOf)).toEqual(expected)
    expect(parseSigningKeys(keys.map(pemOf).join('\n\n')).map(publicJwkOf)).toEqual(expected)
    expect(parseSigningKeys(pems.replace(/\n/g, '\\n')).map(publicJwkOf)).toEqual(expected)
    expect(parseSigningKeys(JSON.stringify({ keys: [jwkOf(keys[0]!)] })).map(publicJwkOf)).toEqual([expected[0]])
  })

  it('the first key signs (its kid in the header); every key is published, in order', async () => {
    const [first, second] = [ed25519(), ed25519()]
    const signer = signerOf(pemOf(first) + pemOf(second))
    expect(signer.publicKeys()).toEqual({ keys: [publicJwkOf(first), publicJwkOf(second)] })
    const token = await signer.sign(CLAIMS, null)
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'EdDSA', kid: publicJwkOf(first).kid, typ: 'JWT' })
    await expect(verifyWith(token, signer.publicKeys())).resolves.toMatchObject({
      payload: { license: CLAIMS.license },
    })
    // Signed by the first key indeed: the second alone does not verify it.
    await expect(verifyWith(token, { keys: [publicJwkOf(second)] })).rejects.toMatchObject({
      code: 'ERR_JWKS_NO_MATCHING_KEY',
    })
  })

  it('a certificate signed before a rotation verifies after it; once its key is dropped it no longer does', async () => {
    const [old, fresh] = [ed25519(), ed25519()]
    const before = await signerOf(pemOf(old)).sign(CLAIMS, null)

    const rotated = signerOf(JSON.stringify({ keys: [jwkOf(fresh), jwkOf(old)] }))
    expect(rotated.publicKeys().keys.map((key) => key.kid)).toEqual([publicJwkOf(fresh).kid, publicJwkOf(old).kid])
    const after = await rotated.sign(CLAIMS, null)
    expect(decodeProtectedHeader(after).kid).toBe(publicJwkOf(fresh).kid)
    expect(decodeProtectedHeader(before).kid).toBe(publicJwkOf(old).kid)
    for (const token of [before, after]) await expect(verifyWith(token, rotated.publicKeys())).resolves.toBeDefined()

    const retired = signerOf(pemOf(fresh))
    await expect(verifyWith(after, retired.publicKeys())).resolves.toBeDefined()
    await expect(verifyWith(before, retired.publicKeys())).rejects.toMatchObject({ code: 'ERR_JWKS_NO_MATCHING_KEY' })
  })

  it('refuses the same key twice, an empty set and any non-Ed25519 entry, without quoting the value', () => {
    const [a, b] = [ed25519(), ed25519()]
    const rsa = crypto.generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey
    const publicOnly = crypto.generateKeyPairSync('ed25519').publicKey
    const cut = pemOf(b).split('\n').slice(0, 2).join('\n') // a second block that lost its END line
    const cases: [string, RegExp][] = [
      [
        pemOf(a) + pemOf(b) + pemOf(a),
        /^LICENSE_SIGNING_KEY holds the same key twice \(keys 1 and 3\); list each key once$/,
      ],
      [
        JSON.stringify({ keys: [jwkOf(a), { ...jwkOf(a), kid: 'another' }] }),
        /^LICENSE_SIGNING_KEY holds the same key twice \(keys 1 and 2\); list each key once$/,
      ],
      [JSON.stringify({ keys: [] }), /^LICENSE_SIGNING_KEY holds no key: its JWK Set is empty$/],
      [JSON.stringify({ keys: jwkOf(a) }), /^LICENSE_SIGNING_KEY is not a JWK Set: its "keys" is not an array$/],
      [
        pemOf(a) + pemOf(rsa),
        /^LICENSE_SIGNING_KEY key 2 of 2 is not an Ed25519 private key \(PKCS#8 PEM or private JWK\)$/,
      ],
      [
        JSON.stringify({ keys: [jwkOf(rsa), jwkOf(a), jwkOf(b)] }),
        /^LICENSE_SIGNING_KEY key 1 of 3 is not an Ed25519 private key \(PKCS#8 PEM or private JWK\)$/,
      ],
      [
        JSON.stringify({ keys: [jwkOf(a), publicOnly.export({ format: 'jwk' })] }),
        /^LICENSE_SIGNING_KEY key 2 of 2 is not an Ed25519 private key/,
      ],
      [
        pemOf(a) + (publicOnly.export({ type: 'spki', format: 'pem' }) as string),
        /^LICENSE_SIGNING_KEY key 2 of 2 is not an Ed25519 private key/,
      ],
      [`${pemOf(a)}${cut}`, /^LICENSE_SIGNING_KEY holds text outside its PEM blocks/],
    ]
    const secrets = secretsOf(a, b, rsa)
    for (const [value, message] of cases) {
      let error: Error | undefined
      try {
        parseSigningKeys(value)
      } catch (caught) {
        error = caught as Error
      }
      expect(error?.message, String(message)).toMatch(message)
      for (const secret of secrets) expect(error!.message).not.toContain(secret)
      // Production start-up refuses the same value with the same words, and a signer never loads it.
      expect(productionProblems({ ...COMPLETE_PRODUCTION_ENV, LICENSE_SIGNING_KEY: value })).toEqual([error!.message])
      expect(() => signerOf(value)).toThrow(error!.message)
    }
    expect(productionProblems({ ...COMPLETE_PRODUCTION_ENV, LICENSE_SIGNING_KEY: pemOf(a) + pemOf(b) })).toEqual([])
    // Blank is no key at all (the environment reads it as unset; the parser refuses it too).
    expect(() => parseSigningKeys('  \n ')).toThrow(/^LICENSE_SIGNING_KEY is not an Ed25519 private key/)
  })

  it('writes the upd claim exactly when updates are given, members in a fixed order', async () => {
    const signer = signerOf(pemOf(ed25519()))
    const payloadOf = async (claims: CertificateClaims) =>
      Buffer.from((await signer.sign(claims, null)).split('.')[1]!, 'base64url').toString()
    expect(await payloadOf(CLAIMS)).not.toContain('"upd"')
    expect(await payloadOf({ ...CLAIMS, updates: undefined })).not.toContain('"upd"')
    expect(await payloadOf({ ...CLAIMS, updates: { policy: 'lifetime' } })).toContain('"upd":{"policy":"lifetime"},')
    expect(await payloadOf({ ...CLAIMS, updates: { major: 3, policy: 'major' } })).toContain(
      '"upd":{"policy":"major","major":3},',
    )
    expect(await payloadOf({ ...CLAIMS, updates: { until: '2026-03-01T00:00:00.000Z', policy: 'months' } })).toContain(
      '"upd":{"policy":"months","until":"2026-03-01T00:00:00.000Z"},',
    )
    const { payload: claims } = await verifyWith(
      await signer.sign({ ...CLAIMS, updates: { policy: 'major', major: 2 } }, null),
      signer.publicKeys(),
    )
    expect(claims.upd).toEqual({ policy: 'major', major: 2 })
  })
})

/**
 * A published test key (never used in production) and the exact certificate it signs: Ed25519 is
 * deterministic, so verifiers in other languages can check themselves against it. docs/LICENSING.md shows
 * the same vector; the last test keeps the two from drifting apart.
 */
const VECTOR = {
  pem: [
    '-----BEGIN PRIVATE KEY-----',
    'MC4CAQAwBQYDK2VwBCIEIAIjg1TLOowkTTAVgUAM/LYhucyvl9Jhr15mDxpO7Wmv',
    '-----END PRIVATE KEY-----',
  ].join('\n'),
  jwk: '{"crv":"Ed25519","d":"AiODVMs6jCRNMBWBQAz8tiG5zK-X0mGvXmYPGk7taa8","x":"mdf9kvbDOLDLp33Ngrau-Z68AHneurjDSczrwhRkxQA","kty":"OKP"}',
  publicKeys:
    '{"keys":[{"kty":"OKP","crv":"Ed25519","x":"mdf9kvbDOLDLp33Ngrau-Z68AHneurjDSczrwhRkxQA","kid":"ysaPTS14Qxw8FUuNNdXpotfvfVrvRnFcmz68Frs2EzI","alg":"EdDSA","use":"sig"}]}',
  issuer: 'https://kit.example',
  now: new Date('2025-01-01T00:00:00Z'),
  claims: {
    license: 'KIT-7Q2MD-4XKT9-HB3WA-NZ6PE',
    plan: 'standard',
    features: ['basic', 'templates', 'support'],
    fingerprint: 'host:build-7f3a;install:0b1c2d',
    updates: { policy: 'major', major: 2 },
  } satisfies CertificateClaims,
  header: '{"alg":"EdDSA","kid":"ysaPTS14Qxw8FUuNNdXpotfvfVrvRnFcmz68Frs2EzI","typ":"JWT"}',
  payload:
    '{"license":"KIT-7Q2MD-4XKT9-HB3WA-NZ6PE","plan":"standard","features":["basic","templates","support"],"fpr":"host:build-7f3a;install:0b1c2d","upd":{"policy":"major","major":2},"iss":"https://kit.example","iat":1735689600,"exp":1736899200}',
  jws:
    'eyJhbGciOiJFZERTQSIsImtpZCI6InlzYVBUUzE0UXh3OEZVdU5OZFhwb3RmdmZWcnZSbkZjbXo2OEZyczJFekkiLCJ0eXAiOiJKV1QifQ' +
    '.eyJsaWNlbnNlIjoiS0lULTdRMk1ELTRYS1Q5LUhCM1dBLU5aNlBFIiwicGxhbiI6InN0YW5kYXJkIiwiZmVhdHVyZXMiOlsiYmFzaWMiLCJ0ZW1wbGF0ZXMiLCJzdXBwb3J0Il0sImZwciI6Imhvc3Q6YnVpbGQtN2YzYTtpbnN0YWxsOjBiMWMyZCIsInVwZCI6eyJwb2xpY3kiOiJtYWpvciIsIm1ham9yIjoyfSwiaXNzIjoiaHR0cHM6Ly9raXQuZXhhbXBsZSIsImlhdCI6MTczNTY4OTYwMCwiZXhwIjoxNzM2ODk5MjAwfQ' +
    '.HnPPmRdtTBCl3qshO6Kuv4CrjuB3JqNoB5ep6s_KUWq4983DWW6nYPTsKtiuh_9IvxJJKJs6sJIxg6Xd9XXPBQ',
}

describe('test vectors', () => {
  const signer = () =>
    licenseCertificates({
      configured: VECTOR.pem,
      generatedFile: path.join(os.tmpdir(), 'kit-never-written.pem'),
      isProduction: true,
      issuer: VECTOR.issuer,
    })({ info: vi.fn() })

  it('the fixed key signs the fixed claims into the exact token, which verifies with the published key', async () => {
    expect(parseSigningKeys(VECTOR.jwk).map(publicJwkOf)).toEqual(parseSigningKeys(VECTOR.pem).map(publicJwkOf))
    expect(JSON.stringify(signer().publicKeys())).toBe(VECTOR.publicKeys)
    const token = await signer().sign(VECTOR.claims, null, VECTOR.now)
    expect(token).toBe(VECTOR.jws)
    const [header, body, signature] = token.split('.')
    expect(Buffer.from(header!, 'base64url').toString()).toBe(VECTOR.header)
    expect(Buffer.from(body!, 'base64url').toString()).toBe(VECTOR.payload)
    // The signature is plain Ed25519 over the ASCII `header.payload`, as the docs tell other languages.
    const publicKey = crypto.createPublicKey(crypto.createPrivateKey(VECTOR.pem))
    expect(crypto.verify(null, Buffer.from(`${header}.${body}`), publicKey, Buffer.from(signature!, 'base64url'))).toBe(
      true,
    )
    const { payload: claims } = await jwtVerify(
      token,
      createLocalJWKSet(JSON.parse(VECTOR.publicKeys) as JSONWebKeySet),
      {
        issuer: VECTOR.issuer,
        algorithms: ['EdDSA'],
        currentDate: VECTOR.now,
      },
    )
    expect(claims.exp! - claims.iat!).toBe(CERTIFICATE_MAX_TTL_SECONDS)
  })

  it('docs/LICENSING.md shows this very vector', () => {
    const doc = fs.readFileSync(path.resolve(import.meta.dirname, '../../docs/LICENSING.md'), 'utf8')
    const start = doc.indexOf('#### Test vectors')
    expect(start, 'docs/LICENSING.md has a "#### Test vectors" section').toBeGreaterThan(-1)
    const rest = doc.slice(start + 1)
    const section = rest.slice(0, rest.search(/\n#{1,4} /) === -1 ? undefined : rest.search(/\n#{1,4} /))
    for (const text of [
      VECTOR.pem,
      VECTOR.jwk,
      VECTOR.publicKeys,
      VECTOR.header,
      VECTOR.payload,
      VECTOR.issuer,
      '2025-01-01T00:00:00Z',
    ]) {
      expect(section).toContain(text)
    }
    // Exactly one token in the section, and it is the one the code signs.
    expect(section.match(/eyJ[\w-]+\.eyJ[\w-]+\.[\w-]+/g)).toEqual([VECTOR.jws])
  })
})

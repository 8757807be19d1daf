import './../support/billing-env'

import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

import { createLocalJWKSet, decodeProtectedHeader, type JSONWebKeySet, jwtVerify, SignJWT } from 'jose'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'

import { RATE_LIMITS } from '../../src/auth/rate-limit'
import { parseSigningKey } from '../../src/config/signing-key'
import { CERTIFICATE_MAX_TTL_SECONDS, licenseCertificates, publicJwkOf } from '../../src/licensing/certificates'
import { generateLicenseKey } from '../../src/licensing/keys'
import type { License } from '../../src/payload-types'
import { PRICES } from '../support/billing-env'
import { buy, rows, seedStandInPlans } from '../support/billing'
import { api, createUser, SERVER_URL, type TestUser, usePayload } from '../support/payload'
import { recordOwnRun } from '../support/queries'

const payload = usePayload()

const DAY_MS = 24 * 60 * 60 * 1000
const NOT_FOUND_BODY = { valid: false, code: 'NOT_FOUND', plan: null, features: [], validUntil: null, certificate: null }

type Validation = { valid: boolean; code: string; plan: string | null; features: string[]; validUntil: string | null; certificate: string | null }
type ErrorAnswer = { errors: { code: string; message: string }[] }

const validate = (body: unknown, address?: string) => api<Validation & ErrorAnswer>('POST', '/licenses/validate', { body, ...(address ? { address } : {}) })

/** Every logger call of the file, to prove no private key material is ever logged. */
const logged: unknown[] = []
let jwks: JSONWebKeySet
let support: TestUser

beforeAll(async () => {
  for (const level of ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const) {
    const original = payload().logger[level].bind(payload().logger)
    vi.spyOn(payload().logger, level).mockImplementation(((...args: unknown[]) => {
      logged.push(args)
      return (original as (...rest: unknown[]) => void)(...args)
    }) as never)
  }
  await seedStandInPlans(payload())
  support = await createUser(payload(), 'support')
  jwks = (await api<JSONWebKeySet>('GET', '/licenses/public-key')).body
})

const planId = async (slug: string) => (await payload().find({ collection: 'plans', where: { slug: { equals: slug } }, limit: 1, depth: 0 })).docs[0]!.id

/** A license as staff would grant it, in any state. */
const grant = async (slug: string, data: Partial<Pick<License, 'status' | 'validUntil'>> = {}) =>
  payload().create({
    collection: 'licenses',
    data: { key: generateLicenseKey(), plan: await planId(slug), source: 'manual', status: 'active', ...data },
  })

const licenseOf = async (user: TestUser) => (await rows(payload(), 'licenses', { user: { equals: user.user.id } }))[0]!

const verify = (certificate: string) => jwtVerify(certificate, createLocalJWKSet(jwks), { issuer: SERVER_URL, algorithms: ['EdDSA'] })

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
    expect(response.body).toMatchObject({ valid: true, code: 'VALID', plan: 'ultimate', features: ['basic', 'templates', 'support', 'api', 'advanced'], validUntil: null })

    const { payload: claims, protectedHeader } = await verify(response.body.certificate!)
    expect(protectedHeader).toMatchObject({ alg: 'EdDSA', kid: jwks.keys[0]!.kid })
    expect(claims).toMatchObject({ license: license.key, plan: 'ultimate', features: response.body.features, iss: SERVER_URL })
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
    expect(response.body).toEqual({ valid: false, code, plan: 'ultimate', features: [], validUntil: null, certificate: null })
  })

  it('EXPIRED for an active license past its validity end, before the scheduled job marks it', async () => {
    const end = new Date(Date.now() - 1000).toISOString()
    const license = await grant('pro', { validUntil: end })
    expect(license.status).toBe('active')
    const response = await validate({ key: license.key })
    expect(response.body).toEqual({ valid: false, code: 'EXPIRED', plan: 'pro', features: [], validUntil: end, certificate: null })
  })

  it('support revokes the license with a reason: the next validation answers REVOKED', async () => {
    const buyer = await createUser(payload(), 'customer')
    await buy(PRICES.standard, { as: buyer })
    const license = await licenseOf(buyer)
    expect((await validate({ key: license.key })).body.code).toBe('VALID')
    const revoke = await api('PATCH', `/licenses/${license.id}`, { as: support, body: { override: 'revoked', overrideReason: 'chargeback by phone' } })
    expect(revoke.status).toBe(200)
    expect((await validate({ key: license.key })).body).toMatchObject({ valid: false, code: 'REVOKED', certificate: null })
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
    expect(await countQueries(() => validate({ key: 'K'.repeat(5000) }))).toEqual({ license: 0, rateLimit: 0, other: [], checkouts: 0 })
  })

  it('400 invalid_request for a body that is not sent as JSON', async () => {
    const response = await api('POST', '/licenses/validate', { body: '{"key":"KIT-00000-00000-00000-00000"}', headers: { 'content-type': 'text/plain' } })
    expect(response.status).toBe(400)
    expect(response.body.errors[0].code).toBe('invalid_request')
  })
})

describe('rate limits', () => {
  const expectLimited = (response: { status: number; body: unknown; headers: Headers }) => {
    expect(response.status).toBe(429)
    expect(response.body).toEqual({ errors: [{ code: 'rate_limited', message: expect.stringMatching(/^Too many license validations\. Try again in \d+ seconds\.$/) }] })
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
    expect(key).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig', kid: expect.stringMatching(/^[\w-]{43}$/) })
  })

  it('a tampered certificate, or one signed by another key with the same kid, fails verification', async () => {
    const license = await grant('standard')
    const certificate = (await validate({ key: license.key })).body.certificate!
    const [header, body, signature] = certificate.split('.')
    const claims = JSON.parse(Buffer.from(body!, 'base64url').toString()) as Record<string, unknown>
    const forged = Buffer.from(JSON.stringify({ ...claims, plan: 'pro', features: ['basic', 'api', 'advanced'] })).toString('base64url')
    await expect(verify(`${header}.${forged}.${signature}`)).rejects.toMatchObject({ code: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED' })
    const flipped = `${signature!.slice(0, 10)}${signature![10] === 'A' ? 'B' : 'A'}${signature!.slice(11)}`
    await expect(verify(`${header}.${body}.${flipped}`)).rejects.toMatchObject({ code: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED' })

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
    expect(publicJwkOf(parseSigningKey(pem))).toEqual(expected)
    expect(publicJwkOf(parseSigningKey(pem.replace(/\n/g, '\\n')))).toEqual(expected)
    expect(publicJwkOf(parseSigningKey(`\n${jwk}\n`))).toEqual(expected)
  })

  it('refuses anything but an Ed25519 private key, without quoting it', () => {
    const rsa = pemOf(crypto.generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey)
    const publicOnly = JSON.stringify(pair().publicKey.export({ format: 'jwk' }))
    const spki = pair().publicKey.export({ type: 'spki', format: 'pem' }) as string
    for (const value of [rsa, publicOnly, spki, 'not a key', '{"kty":"OKP"']) {
      expect(() => parseSigningKey(value)).toThrow(/^LICENSE_SIGNING_KEY is not an Ed25519 private key \(PKCS#8 PEM or private JWK\)$/)
    }
  })

  describe('generated outside production', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kit-license-key-'))
    afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))
    const settings = { configured: undefined, generatedFile: path.join(dir, 'nested', 'license-signing-key.pem'), isProduction: false, issuer: SERVER_URL }

    it('into the data dir with mode 0600, once, logging only its path; kept across restarts', async () => {
      const logger = { info: vi.fn() }
      const first = licenseCertificates(settings)(logger).publicKeys()
      expect(fs.statSync(settings.generatedFile).mode & 0o777).toBe(0o600)
      expect(logger.info).toHaveBeenCalledTimes(1)
      expect(logger.info).toHaveBeenCalledWith({ file: settings.generatedFile }, 'generated a development license signing key')
      expect(fs.readdirSync(path.dirname(settings.generatedFile))).toEqual(['license-signing-key.pem'])

      const restarted = licenseCertificates(settings)(logger).publicKeys()
      expect(restarted).toEqual(first)
      expect(logger.info).toHaveBeenCalledTimes(1)
    })

    it('never in production: without LICENSE_SIGNING_KEY it refuses to sign', () => {
      const production = licenseCertificates({ ...settings, generatedFile: path.join(dir, 'prod.pem'), isProduction: true })
      expect(() => production({ info: vi.fn() })).toThrow('LICENSE_SIGNING_KEY is not set')
      expect(fs.existsSync(path.join(dir, 'prod.pem'))).toBe(false)
    })

    it('uses the configured key over any file', async () => {
      const { privateKey } = pair()
      const configured = licenseCertificates({ ...settings, configured: pemOf(privateKey) })({ info: vi.fn() })
      expect(configured.publicKeys().keys[0]).toEqual(publicJwkOf(privateKey))
      const token = await configured.sign({ license: 'KIT-00000-00000-00000-00000', plan: 'standard', features: ['basic'] }, null)
      const { payload: claims } = await jwtVerify(token, createLocalJWKSet(configured.publicKeys()))
      expect(claims.exp! - claims.iat!).toBe(CERTIFICATE_MAX_TTL_SECONDS)
    })
  })

  it('no private key material in any response or log line of this file', async () => {
    const file = path.resolve('.data/test/license-signing-key.pem')
    const privateKey = parseSigningKey(fs.readFileSync(file, 'utf8'))
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

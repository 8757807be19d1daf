import crypto from 'node:crypto'

import type { Endpoint, Payload } from 'payload'
import type { RateLimiterPostgres } from 'rate-limiter-flexible'
import { z } from 'zod'

import { addressBucket, asRateLimited, sharedLimiter } from '../src/auth/rate-limit'
import { endpoint } from '../src/http/endpoint'
import type { LicenseCertificates } from '../src/licensing/certificates'
import { validateLicenseKey } from '../src/licensing/validate'

/**
 * Validations allowed per window (seconds). An app validates at start and refreshes its certificate
 * well before the 14 days run out; an address serves many apps behind one NAT, a key several instances.
 */
/** The longest license key the endpoint looks up: a key is KIT- and five groups (29 characters); room for another format. */
export const MAX_KEY_LENGTH = 64

export const VALIDATION_LIMITS = { address: [120, 600], key: [60, 600] } as const satisfies Record<string, [number, number]>

type Limiters = { address: RateLimiterPostgres; key: RateLimiterPostgres }
const cache = new WeakMap<Payload, Limiters>()

const limitersOf = (payload: Payload): Limiters => {
  let limiters = cache.get(payload)
  if (!limiters) {
    limiters = {
      address: sharedLimiter(payload, 'license_validate:ip', [...VALIDATION_LIMITS.address]),
      key: sharedLimiter(payload, 'license_validate:key', [...VALIDATION_LIMITS.key]),
    }
    cache.set(payload, limiters)
  }
  return limiters
}

/** The key's bucket is a hash: the rate-limit table never holds a license key. */
const keyBucket = (key: string) => crypto.createHash('sha256').update(key.trim().toUpperCase()).digest('hex').slice(0, 32)

const enforceLimits = async (payload: Payload, address: string | null, key: string) => {
  const limiters = limitersOf(payload)
  try {
    await limiters.address.consume(addressBucket(address))
    await limiters.key.consume(keyBucket(key))
  } catch (error) {
    throw asRateLimited(error, 'license validations')
  }
}

/**
 * POST /api/licenses/validate {key, fingerprint?}: 200 {valid, code, plan, features, validUntil,
 * certificate}. No session: the key is the credential. A string of up to MAX_KEY_LENGTH characters is
 * a key to look up (an empty or malformed one answers NOT_FOUND like an unknown one); a longer one, or
 * a wrong type, is 400 `invalid_request` and is never looked up or counted.
 */
export const validateLicenseEndpoint = (certificates: LicenseCertificates): Endpoint =>
  endpoint({
    path: '/validate',
    method: 'post',
    body: z.object({ key: z.string().max(MAX_KEY_LENGTH), fingerprint: z.string().min(1).max(200).optional() }),
    handler: async ({ req, body, address }) => {
      await enforceLimits(req.payload, address, body.key)
      const now = new Date()
      const validation = await validateLicenseKey(req, body.key, now)
      const certificate =
        validation.code === 'VALID' && validation.key !== null
          ? await certificates(req.payload.logger).sign(
              { license: validation.key, plan: validation.plan, features: validation.features, fingerprint: body.fingerprint },
              validation.validUntil ? new Date(validation.validUntil) : null,
              now,
            )
          : null
      return Response.json(
        { valid: certificate !== null, code: validation.code, plan: validation.plan, features: validation.features, validUntil: validation.validUntil, certificate },
        { headers: { 'Cache-Control': 'no-store' } },
      )
    },
  })

/** GET /api/licenses/public-key: the JWK Set `{keys: [{kty, crv, x, kid, alg, use}]}` certificates verify with. */
export const licensePublicKeyEndpoint = (certificates: LicenseCertificates): Endpoint =>
  endpoint({
    path: '/public-key',
    method: 'get',
    handler: ({ req }) => Response.json(certificates(req.payload.logger).publicKeys(), { headers: { 'Cache-Control': 'public, max-age=3600' } }),
  })

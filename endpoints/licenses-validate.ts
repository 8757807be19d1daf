import crypto from 'node:crypto'

import type { Endpoint, Payload } from 'payload'
import { z } from 'zod'

import { asRateLimited, limiterOf } from '../src/auth/rate-limit'
import { endpoint, publicPreflight } from '../src/http/endpoint'
import { addressBucket } from '../src/http/ip-address'
import {
  ACTIVATION_CERTIFICATE_TTL_SECONDS,
  CERTIFICATE_MAX_TTL_SECONDS,
  type LicenseCertificates,
} from '../src/licensing/certificates'
import { validateLicenseKey } from '../src/licensing/validate'

/** The longest license key the endpoint looks up: a key is KIT- and five groups (29 characters); room for another format. */
export const MAX_KEY_LENGTH = 64

/** The key's bucket is a hash: the rate-limit table never holds a license key. */
const keyBucket = (key: string) =>
  crypto.createHash('sha256').update(key.trim().toUpperCase()).digest('hex').slice(0, 32)

/** Validation's limits, per client address and per key; activation and deactivation share them. */
export const enforceLimits = async (payload: Payload, address: string | null, key: string) => {
  try {
    await limiterOf(payload, 'license_validate:ip').consume(addressBucket(address))
    await limiterOf(payload, 'license_validate:key').consume(keyBucket(key))
  } catch (error) {
    throw asRateLimited(error, 'license validations')
  }
}

/**
 * POST /api/licenses/validate {key, fingerprint?}: 200 {valid, code, plan, features, validUntil,
 * updates, certificate} (`updates`: the license's update window, also the certificate's `upd`). No session: the key is the credential.
 * On a plan with an activation limit, only an activated `fingerprint` is VALID (else NO_ACTIVATION), and
 * the certificate is bound to it (`fpr`) and lives at most 72 hours, so a deactivated installation stops
 * soon after. A string of up to MAX_KEY_LENGTH characters is
 * a key to look up (an empty or malformed one answers NOT_FOUND like an unknown one); a longer one, or
 * a wrong type, is 400 `invalid_request` and is never looked up or counted.
 */
export const validateLicenseEndpoint = (certificates: LicenseCertificates): Endpoint =>
  endpoint({
    path: '/validate',
    publicCors: true,
    method: 'post',
    body: z.object({ key: z.string().max(MAX_KEY_LENGTH), fingerprint: z.string().min(1).max(200).optional() }),
    handler: async ({ req, body, address }) => {
      await enforceLimits(req.payload, address, body.key)
      const now = new Date()
      const validation = await validateLicenseKey(req, body.key, now, body.fingerprint)
      const certificate =
        validation.code === 'VALID' && validation.key !== null
          ? await certificates(req.payload.logger).sign(
              {
                license: validation.key,
                plan: validation.plan,
                features: validation.features,
                fingerprint: body.fingerprint,
                updates: validation.updates ?? undefined,
              },
              validation.validUntil ? new Date(validation.validUntil) : null,
              now,
              validation.limitsActivations ? ACTIVATION_CERTIFICATE_TTL_SECONDS : CERTIFICATE_MAX_TTL_SECONDS,
            )
          : null
      return Response.json(
        {
          valid: certificate !== null,
          code: validation.code,
          plan: validation.plan,
          features: validation.features,
          validUntil: validation.validUntil,
          updates: validation.updates,
          certificate,
        },
        { headers: { 'Cache-Control': 'no-store' } },
      )
    },
  })

/** GET /api/licenses/public-key: the JWK Set `{keys: [{kty, crv, x, kid, alg, use}]}` certificates verify with. */
export const licensePublicKeyEndpoint = (certificates: LicenseCertificates): Endpoint =>
  endpoint({
    path: '/public-key',
    publicCors: true,
    method: 'get',
    handler: ({ req }) =>
      Response.json(certificates(req.payload.logger).publicKeys(), {
        headers: { 'Cache-Control': 'public, max-age=3600' },
      }),
  })

/** The preflights of validation and the key set: apps in a browser (the license client) call them from their own origin. */
export const licenseValidationPreflights = (): Endpoint[] => [
  publicPreflight('/validate'),
  publicPreflight('/public-key'),
]

import type { Endpoint } from 'payload'
import { z } from 'zod'

import { enforceRateLimit } from '../src/auth/rate-limit'
import { quoteUpgrade, startRenewal, startUpgrade } from '../src/billing/license-upgrades'
import type { BillingRuntime } from '../src/billing/runtime'
import { endpoint } from '../src/http/endpoint'
import { ServiceError } from '../src/http/errors'

const SIGN_IN = 'Sign in to change your license.'
const IDEMPOTENCY_KEY = /^[A-Za-z0-9_.:-]{1,200}$/

/** A license id in the path: anything but digits is a license you do not have (404), as another customer's is. */
const licenseId = (raw: string): number => {
  if (!/^[1-9]\d{0,14}$/.test(raw)) throw new ServiceError(404, 'license_not_found', 'You have no license with this id.')
  return Number(raw)
}
const params = z.object({ id: z.string().max(32) })
const planSlug = z.string().regex(/^[a-z][a-z0-9_-]{0,31}$/, 'must be a plan ID such as ultimate.')

const idempotencyKeyOf = (headers: Headers): string | null => {
  const key = headers.get('idempotency-key')
  if (key !== null && !IDEMPOTENCY_KEY.test(key)) throw new ServiceError(400, 'invalid_request', 'Idempotency-Key must be 1 to 200 letters, digits or ._:- characters.')
  return key
}

/**
 * The license's life, for its owner (a session or an API key), on the licenses collection
 * (`/api/licenses/:id/...`; DESIGN.md section 11):
 * - GET /:id/upgrade?plan= → 200 {from, to, amount, currency, credit, price}
 * - POST /:id/upgrade {plan} → 200 {url, id} (hosted checkout) or {upgraded: true}
 * - POST /:id/renewal → 200 {url, id}
 */
export const licenseChangeEndpoints = (runtime: BillingRuntime): Endpoint[] => [
  endpoint({
    path: '/:id/upgrade',
    method: 'get',
    auth: SIGN_IN,
    params,
    query: z.object({ plan: planSlug }),
    handler: async ({ req, params, query, user, address }) => {
      const id = licenseId(params.id)
      const billing = runtime.require()
      // Each quote reads the target's price from the processor: counted like a checkout.
      await enforceRateLimit(req.payload, 'checkout', { address, email: user.email })
      return Response.json(await quoteUpgrade(req, billing, user, id, query.plan), { headers: { 'Cache-Control': 'no-store' } })
    },
  }),
  endpoint({
    path: '/:id/upgrade',
    method: 'post',
    auth: SIGN_IN,
    params,
    body: z.object({ plan: planSlug }),
    handler: async ({ req, params, body, user, address }) => {
      const id = licenseId(params.id)
      const idempotencyKey = idempotencyKeyOf(req.headers)
      const billing = runtime.require()
      await enforceRateLimit(req.payload, 'checkout', { address, email: user.email })
      return startUpgrade(req, billing, user, id, body.plan, { idempotencyKey })
    },
  }),
  endpoint({
    path: '/:id/renewal',
    method: 'post',
    auth: SIGN_IN,
    params,
    handler: async ({ req, params, user, address }) => {
      const id = licenseId(params.id)
      const idempotencyKey = idempotencyKeyOf(req.headers)
      const billing = runtime.require()
      await enforceRateLimit(req.payload, 'checkout', { address, email: user.email })
      return startRenewal(req, billing, user, id, { idempotencyKey })
    },
  }),
]

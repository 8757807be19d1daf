import type { Endpoint, PayloadRequest } from 'payload'
import { z } from 'zod'

import { enforceRateLimit } from '../src/auth/rate-limit'
import { clientIdempotencyKey } from '../src/billing/checkout'
import { quoteUpgrade, startRenewal, startUpgrade } from '../src/billing/license-upgrades'
import type { BillingRuntime } from '../src/billing/runtime'
import { licenseNotYours } from '../src/licensing/status'
import { endpoint } from '../src/http/endpoint'
import { pathRowId } from '../src/http/paths'
import type { User } from '../src/payload-types'

const SIGN_IN = 'Sign in to change your license.'

/** A license id in the path: anything but digits is a license you do not have (404), as another customer's is. */
const licenseId = (raw: string): number => pathRowId(raw, licenseNotYours)
const params = z.object({ id: z.string().max(32) })
const planSlug = z.string().regex(/^[a-z][a-z0-9_-]{0,31}$/, 'must be a plan ID such as ultimate.')

/**
 * What every license change asks first, as POST /api/checkout_sessions does: the license id, the
 * client's Idempotency-Key, a configured processor, and the checkout rate limit (each call reads the
 * processor).
 */
const prepare = async (
  runtime: BillingRuntime,
  context: { req: PayloadRequest; params: { id: string }; user: User; address: string | null },
) => {
  const id = licenseId(context.params.id)
  const idempotencyKey = clientIdempotencyKey(context.req.headers)
  const billing = runtime.require()
  await enforceRateLimit(context.req.payload, 'checkout', { address: context.address, email: context.user.email })
  return { id, idempotencyKey, billing }
}

/**
 * The license's life, for its owner (a session or an API key), on the licenses collection
 * (`/api/licenses/:id/...`; docs/LICENSING.md):
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
    handler: async (context) => {
      // Each quote reads the target's price from the processor: counted like a checkout.
      const { id, billing } = await prepare(runtime, context)
      return Response.json(await quoteUpgrade(context.req, billing, context.user, id, context.query.plan), {
        headers: { 'Cache-Control': 'no-store' },
      })
    },
  }),
  endpoint({
    path: '/:id/upgrade',
    method: 'post',
    auth: SIGN_IN,
    params,
    body: z.object({ plan: planSlug }),
    handler: async (context) => {
      const { id, idempotencyKey, billing } = await prepare(runtime, context)
      return startUpgrade(context.req, billing, context.user, id, context.body.plan, { idempotencyKey })
    },
  }),
  endpoint({
    path: '/:id/renewal',
    method: 'post',
    auth: SIGN_IN,
    params,
    handler: async (context) => {
      const { id, idempotencyKey, billing } = await prepare(runtime, context)
      return startRenewal(context.req, billing, context.user, id, { idempotencyKey })
    },
  }),
]

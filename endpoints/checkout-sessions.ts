import type { Endpoint } from 'payload'
import { z } from 'zod'

import { enforceRateLimit } from '../src/auth/rate-limit'
import { createCheckoutSession } from '../src/billing/checkout'
import type { BillingRuntime } from '../src/billing/runtime'
import { endpoint } from '../src/http/endpoint'
import { ServiceError } from '../src/http/errors'

const IDEMPOTENCY_KEY = /^[A-Za-z0-9_.:-]{1,200}$/

const body = z.object({
  priceId: z.string().regex(/^price_[A-Za-z0-9_]{1,200}$/, 'must be a processor price ID (price_...).'),
})

/** POST /api/checkout_sessions {priceId}: 200 {url, id}, the hosted checkout to redirect to. */
export const checkoutSessionsEndpoint = (runtime: BillingRuntime): Endpoint =>
  endpoint({
    path: '/checkout_sessions',
    method: 'post',
    body,
    handler: async ({ req, body, user, address }) => {
      const idempotencyKey = req.headers.get('idempotency-key')
      if (idempotencyKey !== null && !IDEMPOTENCY_KEY.test(idempotencyKey)) {
        throw new ServiceError(400, 'invalid_request', 'Idempotency-Key must be 1 to 200 letters, digits or ._:- characters.')
      }
      const billing = runtime.require()
      await enforceRateLimit(req.payload, 'checkout', { address, email: user?.email })
      return createCheckoutSession(req, billing, {
        priceId: body.priceId,
        idempotencyKey,
        clientFingerprint: `${address ?? ''}|${req.headers.get('user-agent') ?? ''}`,
      })
    },
  })

import type { Endpoint } from 'payload'
import { z } from 'zod'

import { referralFromCookieHeader } from '../src/affiliates/referral'
import { enforceRateLimit } from '../src/auth/rate-limit'
import { clientIdempotencyKey, createCheckoutSession } from '../src/billing/checkout'
import type { BillingRuntime } from '../src/billing/runtime'
import { endpoint } from '../src/http/endpoint'

const body = z.object({
  priceId: z.string().regex(/^price_[A-Za-z0-9_]{1,200}$/, 'must be a processor price ID (price_...).'),
  /** Seats (docs/TEAMS.md): 1 up to the plan's maxSeats, checked against the plan (400 invalid_quantity). */
  quantity: z.number().optional(),
})

/** POST /api/checkout_sessions {priceId, quantity?}: 200 {url, id}, the hosted checkout to redirect to. */
export const checkoutSessionsEndpoint = (runtime: BillingRuntime): Endpoint =>
  endpoint({
    path: '/checkout_sessions',
    method: 'post',
    body,
    handler: async ({ req, body, user, address }) => {
      const idempotencyKey = clientIdempotencyKey(req.headers)
      const billing = runtime.require()
      await enforceRateLimit(req.payload, 'checkout', { address, email: user?.email })
      return createCheckoutSession(req, billing, {
        priceId: body.priceId,
        quantity: body.quantity,
        idempotencyKey,
        clientFingerprint: `${address ?? ''}|${req.headers.get('user-agent') ?? ''}`,
        referral: referralFromCookieHeader(req.headers.get('cookie')),
      })
    },
  })

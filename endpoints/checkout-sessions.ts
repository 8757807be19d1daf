import type { Endpoint } from 'payload'

import { createCheckoutSession } from '../src/billing/checkout'
import type { BillingRuntime } from '../src/billing/runtime'
import { errorResponse, ServiceError } from '../src/http/errors'
import { readJsonObject } from '../src/http/json'

const PRICE_ID = /^price_[A-Za-z0-9_]{1,200}$/
const IDEMPOTENCY_KEY = /^[A-Za-z0-9_.:-]{1,200}$/

/** POST /api/checkout_sessions {priceId}: 200 {url, id}, the hosted checkout to redirect to. */
export const checkoutSessionsEndpoint = (runtime: BillingRuntime): Endpoint => ({
  path: '/checkout_sessions',
  method: 'post',
  handler: async (req) => {
    try {
      const body = await readJsonObject(req)
      if (typeof body.priceId !== 'string' || !PRICE_ID.test(body.priceId)) {
        throw new ServiceError(400, 'invalid_request', 'priceId must be a processor price ID (price_...).')
      }
      const idempotencyKey = req.headers.get('idempotency-key')
      if (idempotencyKey !== null && !IDEMPOTENCY_KEY.test(idempotencyKey)) {
        throw new ServiceError(400, 'invalid_request', 'Idempotency-Key must be 1 to 200 letters, digits or ._:- characters.')
      }
      const billing = runtime.require()
      const session = await createCheckoutSession(req, billing, {
        priceId: body.priceId,
        idempotencyKey,
        clientFingerprint: `${req.headers.get('x-forwarded-for') ?? ''}|${req.headers.get('user-agent') ?? ''}`,
      })
      return Response.json(session)
    } catch (error) {
      return errorResponse(error)
    }
  },
})

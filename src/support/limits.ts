import type { Payload } from 'payload'
import type { RateLimiterPostgres } from 'rate-limiter-flexible'

import { asRateLimited, sharedLimiter } from '../auth/rate-limit'

type Kind = 'requests' | 'followUps'

/** Per customer and window (seconds): new requests, and follow-up messages on their requests. */
export const SUPPORT_LIMITS: Record<Kind, { points: number; durationSeconds: number; what: string }> = {
  requests: { points: 10, durationSeconds: 24 * 3600, what: 'support requests' },
  followUps: { points: 50, durationSeconds: 24 * 3600, what: 'follow-up messages' },
}

const cache = new WeakMap<Payload, Record<Kind, RateLimiterPostgres>>()

const limiterOf = (payload: Payload, kind: Kind): RateLimiterPostgres => {
  let limiters = cache.get(payload)
  if (!limiters) {
    const make = (name: Kind) => sharedLimiter(payload, `support_${name}:user`, [SUPPORT_LIMITS[name].points, SUPPORT_LIMITS[name].durationSeconds])
    limiters = { requests: make('requests'), followUps: make('followUps') }
    cache.set(payload, limiters)
  }
  return limiters[kind]
}

/** Count one message of the customer; past the limit, 429 `rate_limited` with Retry-After. */
export const countSupportMessage = async (payload: Payload, kind: Kind, userId: number): Promise<void> => {
  try {
    await limiterOf(payload, kind).consume(String(userId))
  } catch (error) {
    throw asRateLimited(error, SUPPORT_LIMITS[kind].what)
  }
}

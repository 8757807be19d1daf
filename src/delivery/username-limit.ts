import type { Payload } from 'payload'
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible'

import { RATE_LIMIT_TABLE } from '../auth/rate-limit'
import { ServiceError } from '../http/errors'

/**
 * New usernames one account may ask for per window (seconds): each one is an invitation on the code
 * host, whose daily invitation quota every customer shares.
 */
export const USERNAME_CHANGES: { points: number; durationSeconds: number } = { points: 5, durationSeconds: 24 * 3600 }

const cache = new WeakMap<Payload, RateLimiterPostgres>()

const limiterOf = (payload: Payload): RateLimiterPostgres => {
  let limiter = cache.get(payload)
  if (!limiter) {
    limiter = new RateLimiterPostgres({
      storeClient: payload.db.pool,
      storeType: 'pool',
      tableName: RATE_LIMIT_TABLE,
      tableCreated: true,
      clearExpiredByTimeout: false,
      keyPrefix: 'repo_username:user',
      points: USERNAME_CHANGES.points,
      duration: USERNAME_CHANGES.durationSeconds,
    })
    cache.set(payload, limiter)
  }
  return limiter
}

/** Count one new username for the user; past the limit, 429 `rate_limited` with Retry-After. */
export const countUsernameChange = async (payload: Payload, userId: number): Promise<void> => {
  try {
    await limiterOf(payload).consume(String(userId))
  } catch (error) {
    if (error instanceof RateLimiterRes) {
      const retryAfter = Math.max(1, Math.ceil(error.msBeforeNext / 1000))
      throw new ServiceError(429, 'rate_limited', `Too many username changes. Try again in ${retryAfter} seconds.`, retryAfter)
    }
    throw error
  }
}

/** Give the point back: the code host was unavailable, so no invitation was spent. */
export const refundUsernameChange = async (payload: Payload, userId: number): Promise<void> => {
  await limiterOf(payload).reward(String(userId))
}

import crypto from 'node:crypto'

import type { Payload } from 'payload'
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible'

import { ServiceError } from '../http/errors'

export type LimitedAction = 'sign_in' | 'sign_up' | 'magic_link' | 'password_reset'

/** Attempts allowed per window (seconds), per client address and per account (email). */
export const LIMITS: Record<LimitedAction, { address: [number, number]; account: [number, number] }> = {
  sign_in: { address: [30, 600], account: [10, 600] },
  sign_up: { address: [10, 3600], account: [3, 3600] },
  magic_link: { address: [10, 600], account: [5, 600] },
  password_reset: { address: [10, 600], account: [5, 3600] },
}

/** The table (created by a migration) every instance shares, so limits hold across instances. */
export const RATE_LIMIT_TABLE = 'rate_limits'

type Limiters = Record<LimitedAction, { address: RateLimiterPostgres; account: RateLimiterPostgres }>
const cache = new WeakMap<Payload, Limiters>()

const limitersOf = (payload: Payload): Limiters => {
  let limiters = cache.get(payload)
  if (!limiters) {
    const make = (prefix: string, [points, duration]: [number, number]) =>
      new RateLimiterPostgres({
        storeClient: payload.db.pool,
        storeType: 'pool',
        tableName: RATE_LIMIT_TABLE,
        tableCreated: true,
        clearExpiredByTimeout: false,
        keyPrefix: prefix,
        points,
        duration,
      })
    limiters = Object.fromEntries(
      (Object.keys(LIMITS) as LimitedAction[]).map((action) => [
        action,
        { address: make(`${action}:ip`, LIMITS[action].address), account: make(`${action}:account`, LIMITS[action].account) },
      ]),
    ) as Limiters
    cache.set(payload, limiters)
  }
  return limiters
}

/** The client's address as the proxy in front of us reports it (first X-Forwarded-For entry). */
export const clientAddress = (headers: Headers | undefined): string | null =>
  headers?.get('x-forwarded-for')?.split(',')[0]?.trim() || headers?.get('x-real-ip')?.trim() || null

const accountKey = (email: string) => crypto.createHash('sha256').update(email.trim().toLowerCase()).digest('hex').slice(0, 32)

/**
 * Count one attempt of `action` for the client address and for the account; over either limit, a
 * 429 `rate_limited` with Retry-After. The answer is the same whether or not the account exists.
 * Calls without a client address (internal use) are limited per account only.
 */
export const enforceRateLimit = async (
  payload: Payload,
  action: LimitedAction,
  subject: { address: string | null; email?: string | null },
): Promise<void> => {
  const limiters = limitersOf(payload)[action]
  try {
    if (subject.address) await limiters.address.consume(subject.address)
    if (subject.email) await limiters.account.consume(accountKey(subject.email))
  } catch (error) {
    if (error instanceof RateLimiterRes) {
      const retryAfter = Math.max(1, Math.ceil(error.msBeforeNext / 1000))
      throw new ServiceError(429, 'rate_limited', `Too many attempts. Try again in ${retryAfter} seconds.`, retryAfter)
    }
    throw error
  }
}

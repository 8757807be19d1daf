import crypto from 'node:crypto'
import net from 'node:net'

import type { Payload } from 'payload'
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible'

import { ServiceError } from '../http/errors'

export type LimitedAction = 'sign_in' | 'sign_up' | 'magic_link' | 'password_reset' | 'confirmation' | 'email_change' | 'checkout' | 'checkout_status'

/** Attempts allowed per window (seconds), per client address and per account (email). */
export const LIMITS: Record<LimitedAction, { address: [number, number]; account: [number, number] }> = {
  sign_in: { address: [30, 600], account: [10, 600] },
  sign_up: { address: [10, 3600], account: [3, 3600] },
  magic_link: { address: [10, 600], account: [5, 600] },
  password_reset: { address: [10, 600], account: [5, 3600] },
  confirmation: { address: [10, 600], account: [3, 3600] },
  email_change: { address: [10, 600], account: [5, 3600] },
  // Each checkout asks the processor for a session: one client must not flood it.
  checkout: { address: [20, 600], account: [20, 600] },
  // The success page reads the checkout session from the processor (and polls while the webhook is on its way).
  checkout_status: { address: [120, 600], account: [120, 600] },
}

/** The table (created by a migration) every instance shares, so limits hold across instances. */
export const RATE_LIMIT_TABLE = 'rate_limits'

/** A limiter on the shared table: `points` per `duration` seconds for each key under `keyPrefix`. */
export const sharedLimiter = (payload: Payload, keyPrefix: string, [points, duration]: [number, number]): RateLimiterPostgres =>
  new RateLimiterPostgres({
    storeClient: payload.db.pool,
    storeType: 'pool',
    tableName: RATE_LIMIT_TABLE,
    tableCreated: true,
    clearExpiredByTimeout: false,
    keyPrefix,
    points,
    duration,
  })

/** One limiter per Payload instance for `keyPrefix`, made on first use: what each single-purpose limit module keeps. */
export const limiterPerInstance = (keyPrefix: string, limit: { points: number; durationSeconds: number }): ((payload: Payload) => RateLimiterPostgres) => {
  const cache = new WeakMap<Payload, RateLimiterPostgres>()
  return (payload) => {
    let limiter = cache.get(payload)
    if (!limiter) {
      limiter = sharedLimiter(payload, keyPrefix, [limit.points, limit.durationSeconds])
      cache.set(payload, limiter)
    }
    return limiter
  }
}

/** A limiter's refusal as 429 `rate_limited` with Retry-After ("Too many `what`"); any other error as it is. */
export const asRateLimited = (error: unknown, what = 'attempts'): unknown => {
  if (!(error instanceof RateLimiterRes)) return error
  const retryAfter = Math.max(1, Math.ceil(error.msBeforeNext / 1000))
  return new ServiceError(429, 'rate_limited', `Too many ${what}. Try again in ${retryAfter} seconds.`, retryAfter)
}

type Limiters = Record<LimitedAction, { address: RateLimiterPostgres; account: RateLimiterPostgres }>
const cache = new WeakMap<Payload, Limiters>()

const limitersOf = (payload: Payload): Limiters => {
  let limiters = cache.get(payload)
  if (!limiters) {
    const make = (prefix: string, limit: [number, number]) => sharedLimiter(payload, prefix, limit)
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

/** Requests with no usable client address are counted together, never skipped. */
const UNKNOWN_ADDRESS = 'unknown'

/**
 * The bucket of a client address: an IPv4 address, or the /64 of an IPv6 one (one subscriber holds a
 * whole /64 and could rotate through it otherwise).
 */
export const addressBucket = (address: string | null): string => {
  if (!address) return UNKNOWN_ADDRESS
  if (net.isIP(address) !== 6) return address
  const [head = '', tail = ''] = address.toLowerCase().split('::')
  const left = head ? head.split(':') : []
  const right = address.includes('::') ? (tail ? tail.split(':') : []) : []
  const groups = [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right]
  return `${groups.slice(0, 4).map((group) => group.padStart(4, '0')).join(':')}::/64`
}

const accountKey = (email: string) => crypto.createHash('sha256').update(email.trim().toLowerCase()).digest('hex').slice(0, 32)

/**
 * Count one attempt of `action` for the client address and for the account; over either limit, a
 * 429 `rate_limited` with Retry-After. The answer is the same whether or not the account exists.
 * Calls without a usable client address share one bucket.
 */
export const enforceRateLimit = async (
  payload: Payload,
  action: LimitedAction,
  subject: { address: string | null; email?: string | null },
): Promise<void> => {
  const limiters = limitersOf(payload)[action]
  try {
    await limiters.address.consume(addressBucket(subject.address))
    if (subject.email) await limiters.account.consume(accountKey(subject.email))
  } catch (error) {
    throw asRateLimited(error)
  }
}

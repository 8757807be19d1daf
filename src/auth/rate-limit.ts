import crypto from 'node:crypto'

import type { Payload } from 'payload'
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible'

import { ServiceError } from '../http/errors'
import { addressBucket } from '../http/ip-address'

export type LimitedAction =
  | 'sign_in'
  | 'sign_up'
  | 'magic_link'
  | 'password_reset'
  | 'confirmation'
  | 'email_change'
  | 'checkout'
  | 'checkout_status'
  | 'billing_portal'
  | 'community_connect'

/**
 * Every rate limit of the service, by the key prefix its counts carry in the shared table: `points`
 * per `durationSeconds` for each key under the prefix (a client address, an account, a user, a key).
 */
export const RATE_LIMITS = {
  // Account actions (enforceRateLimit): per client address (`:ip`) and per account, its email (`:account`).
  'sign_in:ip': { points: 30, durationSeconds: 600 },
  'sign_in:account': { points: 10, durationSeconds: 600 },
  'sign_up:ip': { points: 10, durationSeconds: 3600 },
  'sign_up:account': { points: 3, durationSeconds: 3600 },
  'magic_link:ip': { points: 10, durationSeconds: 600 },
  'magic_link:account': { points: 5, durationSeconds: 600 },
  'password_reset:ip': { points: 10, durationSeconds: 600 },
  'password_reset:account': { points: 5, durationSeconds: 3600 },
  'confirmation:ip': { points: 10, durationSeconds: 600 },
  'confirmation:account': { points: 3, durationSeconds: 3600 },
  'email_change:ip': { points: 10, durationSeconds: 600 },
  'email_change:account': { points: 5, durationSeconds: 3600 },
  // Each checkout asks the processor for a session: one client must not flood it.
  'checkout:ip': { points: 20, durationSeconds: 600 },
  'checkout:account': { points: 20, durationSeconds: 600 },
  // The success page reads the checkout session from the processor (and polls while the webhook is on its way).
  'checkout_status:ip': { points: 120, durationSeconds: 600 },
  'checkout_status:account': { points: 120, durationSeconds: 600 },
  // Each opening of the billing portal asks the processor for a portal session (src/billing/portal.ts).
  'billing_portal:ip': { points: 20, durationSeconds: 600 },
  'billing_portal:account': { points: 20, durationSeconds: 600 },
  // Each Join of the Discord community stores a state for 10 minutes (src/community/link.ts).
  'community_connect:ip': { points: 30, durationSeconds: 600 },
  'community_connect:account': { points: 10, durationSeconds: 600 },
  // GraphQL requests per client address from anyone but staff (src/auth/graphql-guard.ts): each is bounded
  // in cost, and this bounds how many a client sends. The site's pages and the admin send none.
  'graphql:ip': { points: 60, durationSeconds: 60 },
  // Requests per API key (src/auth/api-keys.ts).
  api_key: { points: 60, durationSeconds: 60 },
  // License validations (endpoints/licenses-validate.ts): an app validates at start and refreshes its
  // certificate well before the 14 days run out; an address serves many apps behind one NAT, a key several instances.
  'license_validate:ip': { points: 120, durationSeconds: 600 },
  'license_validate:key': { points: 60, durationSeconds: 600 },
  // Code-host calls per account (src/delivery/code-host-budget.ts), whatever they are (an invitation, a
  // collaborator check, an invitation lookup, a removal), from `POST` and `GET /api/repo-access` and the
  // dashboard's form. Every customer shares the token's rate limit
  // (and the repository's invitation quota): one account must not spend it. A real user asks once and
  // looks a few times (about 3 calls for a request, 2 for a check, at most one check per 10 s): 30 an
  // hour is plenty. Jobs and staff actions are not counted: they act for the service, not for the customer.
  'code_host_calls:user': { points: 30, durationSeconds: 3600 },
  // New repository usernames per account (src/delivery/username-limit.ts): each one is an invitation on
  // the code host, whose daily invitation quota every customer shares. A new invitation for the username
  // one holds (the old one expired or vanished) counts too; asking again while it stands does not.
  'repo_username:user': { points: 5, durationSeconds: 24 * 3600 },
  // Support messages per customer (src/support/limits.ts): new requests, and follow-ups on their requests.
  'support_requests:user': { points: 10, durationSeconds: 24 * 3600 },
  'support_followUps:user': { points: 50, durationSeconds: 24 * 3600 },
  // Data exports per account (endpoints/account-export.ts): each reads every row of the account.
  'account_export:user': { points: 5, durationSeconds: 24 * 3600 },
  // Seat invitations per license owner (endpoints/license-seats.ts): each one emails a claim link.
  'seat_invites:user': { points: 30, durationSeconds: 24 * 3600 },
  // Pricing-view beacons per client address (endpoints/insights-views.ts), counted in memory (memoryLimiterOf):
  // an address counts once per page a day anyway, so this only keeps a flood of beacons off the database.
  'pricing_views:ip': { points: 30, durationSeconds: 600 },
} as const satisfies Record<string, { points: number; durationSeconds: number }>

export type RateLimitKey = keyof typeof RATE_LIMITS

/** The table (created by a migration) every instance shares, so limits hold across instances. */
export const RATE_LIMIT_TABLE = 'rate_limits'

/** Limiters made on first use, one per Payload instance and RATE_LIMITS entry. */
const limiters = <Limiter>(make: (payload: Payload, keyPrefix: RateLimitKey) => Limiter) => {
  const cache = new WeakMap<Payload, Map<RateLimitKey, Limiter>>()
  return (payload: Payload, keyPrefix: RateLimitKey): Limiter => {
    let made = cache.get(payload)
    if (!made) cache.set(payload, (made = new Map<RateLimitKey, Limiter>()))
    let limiter = made.get(keyPrefix)
    if (!limiter) made.set(keyPrefix, (limiter = make(payload, keyPrefix)))
    return limiter
  }
}

/** The limiter of one RATE_LIMITS entry on the shared table. */
export const limiterOf = limiters(
  (payload, keyPrefix) =>
    new RateLimiterPostgres({
      storeClient: payload.db.pool,
      storeType: 'pool',
      tableName: RATE_LIMIT_TABLE,
      tableCreated: true,
      clearExpiredByTimeout: false,
      keyPrefix,
      points: RATE_LIMITS[keyPrefix].points,
      duration: RATE_LIMITS[keyPrefix].durationSeconds,
    }),
)

/**
 * A RATE_LIMITS entry counted in this process's memory, per instance: for a limit whose only job is to
 * keep a flood off the database, where a round trip to the shared table would cost what it saves.
 */
export const memoryLimiterOf = limiters(
  (_payload, keyPrefix) =>
    new RateLimiterMemory({
      keyPrefix,
      points: RATE_LIMITS[keyPrefix].points,
      duration: RATE_LIMITS[keyPrefix].durationSeconds,
    }),
)

/** A limiter's refusal as 429 `rate_limited` with Retry-After ("Too many `what`"); any other error as it is. */
export const asRateLimited = (error: unknown, what = 'attempts'): unknown => {
  if (!(error instanceof RateLimiterRes)) return error
  const retryAfter = Math.max(1, Math.ceil(error.msBeforeNext / 1000))
  return new ServiceError(429, 'rate_limited', `Too many ${what}. Try again in ${retryAfter} seconds.`, retryAfter)
}

const accountKey = (email: string) =>
  crypto.createHash('sha256').update(email.trim().toLowerCase()).digest('hex').slice(0, 32)

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
  try {
    await limiterOf(payload, `${action}:ip`).consume(addressBucket(subject.address))
    if (subject.email) await limiterOf(payload, `${action}:account`).consume(accountKey(subject.email))
  } catch (error) {
    throw asRateLimited(error)
  }
}

import crypto from 'node:crypto'
import { promisify } from 'node:util'

import type { Payload, PayloadRequest } from 'payload'

import { WITHOUT_JOINS } from '../db/no-joins'
import { ServiceError } from '../http/errors'
import { enforceRateLimit } from './rate-limit'

const pbkdf2 = promisify(crypto.pbkdf2)

// PATCH: password-hash
/**
 * Payload 3.90's password hashes: `pbkdf2-sha256-v1:<hex>` (600,000 rounds, 32 bytes), or a legacy
 * bare hex hash (25,000 rounds, 512 bytes). Mirrors payload/dist/auth/strategies/local, which Payload
 * does not export.
 */
const CURRENT_PREFIX = 'pbkdf2-sha256-v1:'
const CURRENT = { iterations: 600_000, keyLength: 32 }
const LEGACY = { iterations: 25_000, keyLength: 512 }

/** Whether `password` is the one behind a user's stored `salt` and `hash`. */
const passwordMatches = async (
  stored: { salt?: string | null; hash?: string | null } | null | undefined,
  password: unknown,
): Promise<boolean> => {
  if (!stored?.salt || !stored.hash || typeof password !== 'string' || password.length > 1_000) return false
  const current = stored.hash.startsWith(CURRENT_PREFIX)
  const { iterations, keyLength } = current ? CURRENT : LEGACY
  const expected = Buffer.from(current ? stored.hash.slice(CURRENT_PREFIX.length) : stored.hash, 'hex')
  const given = await pbkdf2(password, stored.salt, iterations, keyLength, 'sha256')
  return given.length === expected.length && crypto.timingSafeEqual(given, expected)
}

/**
 * Spend what checking or setting one password costs, for answers that must take as long as a real
 * check (unknown or unusable accounts, a sign-up with an email that has an account).
 */
export const spendOnePasswordHash = async (): Promise<void> => {
  await pbkdf2(
    crypto.randomBytes(16),
    crypto.randomBytes(32).toString('hex'),
    CURRENT.iterations,
    CURRENT.keyLength,
    'sha256',
  )
}

/**
 * A signed-in user proves their current password before a sensitive change (password, email), so a
 * stolen session is no permanent takeover. Each guess counts as a sign-in attempt on the account
 * (429 `rate_limited` past it); a wrong or missing one is 400 `current_password_incorrect`.
 */
export const requireCurrentPassword = async (
  payload: Payload,
  user: { id: number | string; email: string },
  currentPassword: unknown,
  context: { address: string | null; req?: PayloadRequest; hint: string },
): Promise<void> => {
  await enforceRateLimit(payload, 'sign_in', { address: context.address, email: user.email })
  const stored = await payload.db.findOne<{ id: number; salt?: string | null; hash?: string | null }>({
    collection: 'users',
    where: { id: { equals: user.id } },
    ...WITHOUT_JOINS,
    ...(context.req ? { req: context.req } : {}),
  })
  if (!(await passwordMatches(stored, currentPassword))) {
    throw new ServiceError(400, 'current_password_incorrect', context.hint)
  }
}

/** `req.context` flag of a write that gives an account a random password no one knows (OAuth, a sign-in link, a proof of ownership). */
export const RANDOM_PASSWORD = 'randomPassword'

/** A password no one knows, for an account its owner signs in to otherwise; with RANDOM_PASSWORD in the write's context. */
export const randomPassword = () => crypto.randomBytes(32).toString('base64url')

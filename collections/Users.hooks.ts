import {
  AuthenticationError,
  type CollectionBeforeChangeHook,
  type CollectionBeforeOperationHook,
  type PayloadRequest,
} from 'payload'

import { isAdminUser } from '../src/access/roles'
import { RANDOM_PASSWORD, requireCurrentPassword, spendOnePasswordHash } from '../src/auth/password-hash'
import { enforceRateLimit, type LimitedAction } from '../src/auth/rate-limit'
import { storedResetToken } from '../src/auth/tokens'
import { WITHOUT_JOINS } from '../src/db/no-joins'
import { clientAddress } from '../src/http/client-address'
import { ServiceError } from '../src/http/errors'
import type { User } from '../src/payload-types'

/** The users collection's hooks (collections/Users.ts): roles, attempt limits, credentials, reset tokens, email changes. */

/**
 * The first user registered through the admin's "create first user" screen becomes an admin;
 * every other new user is a customer unless an admin says otherwise (role field access).
 */
export const assignRoles: CollectionBeforeChangeHook = ({ data, operation, req }) => {
  if (operation === 'create' && !req.user && req.pathname?.endsWith('/users/first-register')) {
    // The operator who installs the service proves nothing by email; the admin signs in at once.
    return { ...data, roles: ['admin'], emailVerified: true }
  }
  if (!Array.isArray(data.roles) || data.roles.length === 0) return { ...data, roles: ['customer'] }
  return data
}

const LIMITED_OPERATIONS: Partial<Record<string, LimitedAction>> = {
  login: 'sign_in',
  forgotPassword: 'password_reset',
  create: 'sign_up',
}

/**
 * Sign-in, sign-up and reset attempts through Payload's own API (REST, GraphQL, the admin) count
 * against per-address and per-account limits (shared in PostgreSQL). Our own operations (pages,
 * /api/auth/*) call the Local API and enforce the same limits themselves, once per attempt.
 */
export const limitAttempts: CollectionBeforeOperationHook = async ({ args, operation, req }) => {
  const action = LIMITED_OPERATIONS[operation]
  const email = (args as { data?: { email?: unknown } }).data?.email
  // Staff creating users in the admin are not signing up.
  if (action && req.payloadAPI !== 'local' && !(operation === 'create' && req.user)) {
    await enforceRateLimit(req.payload, action, {
      address: clientAddress(req.headers),
      email: typeof email === 'string' ? email : null,
    })
  }
  return args
}

/** Which accounts a password opens, and how a reset token is matched: for every API alike. */
export const guardCredentials: CollectionBeforeOperationHook = async ({ args, operation, req }) => {
  const data = (args as { data?: { email?: unknown; token?: unknown } }).data
  if (operation === 'login' && typeof data?.email === 'string') await refuseUnusableAccount(req, data.email)
  if (operation === 'resetPassword' && data) presentResetTokenHashed(data)
  return args
}

// PATCH: reset-token-hash
/**
 * The users row keeps only a reset token's SHA-256 (hashResetToken), so whoever presents a token is
 * matched by its hash: the stored value itself is no key. Payload read `data` before this hook runs,
 * so the token is replaced in that same object.
 */
const presentResetTokenHashed = (data: { token?: unknown }) => {
  if (typeof data.token === 'string') data.token = storedResetToken(data.token)
}

/**
 * A password signs in only to an existing, verified, unlocked account. The other three get exactly a
 * wrong password's answer (Payload's AuthenticationError) at its cost (one password hash as
 * Payload computes it), so the answer tells nothing about whether or how the account exists.
 */
const refuseUnusableAccount = async (req: PayloadRequest, email: string) => {
  const user = await req.payload.db.findOne<{ id: number; emailVerified?: boolean | null; lockUntil?: string | null }>({
    collection: 'users',
    where: { email: { equals: email.trim().toLowerCase() } },
    ...WITHOUT_JOINS,
    req,
  })
  const locked = Boolean(user?.lockUntil && new Date(user.lockUntil).getTime() > Date.now())
  if (user && user.emailVerified && !locked) return
  await spendOnePasswordHash()
  throw new AuthenticationError(req.t)
}

/**
 * A customer (or support user) changing their own password proves the current one in the same request
 * (`currentPassword`), so a stolen session cannot turn into a permanent takeover. Accounts that have
 * no password they know (magic link, OAuth) set one through the reset email. Admins are exempt: they
 * set passwords for others in the admin.
 */
export const currentPasswordForNewPassword: CollectionBeforeOperationHook = async ({ args, operation, req }) => {
  const data = (args as { data?: { password?: unknown; currentPassword?: unknown } }).data
  if (operation !== 'update' || !data || typeof data.password !== 'string' || !req.user || isAdminUser(req.user))
    return args
  const current = data.currentPassword
  delete data.currentPassword
  await requireCurrentPassword(req.payload, req.user, current, {
    address: clientAddress(req.headers),
    req,
    hint: 'To set a new password, send your current one as currentPassword (or use "Forgot your password?").',
  })
  return args
}

/** Payload's forgot-password writes its token through update: keep only the token's SHA-256. */
export const hashResetToken: CollectionBeforeChangeHook = ({ data }) =>
  typeof data.resetPasswordToken === 'string'
    ? { ...data, resetPasswordToken: storedResetToken(data.resetPasswordToken) }
    : data

/**
 * A user does not change their own email directly: POST /api/account/email confirms the new address
 * first (a link sent to it). Admins still change emails in the admin; our own operations run without a user.
 */
export const guardEmailChange: CollectionBeforeChangeHook<User> = ({ data, operation, originalDoc, req }) => {
  if (operation !== 'update' || !req.user || isAdminUser(req.user) || typeof data.email !== 'string') return data
  if (data.email.trim().toLowerCase() === String(originalDoc?.email ?? '').toLowerCase()) return data
  throw new ServiceError(
    400,
    'email_change_requires_confirmation',
    'Change your email with POST /api/account/email: we confirm the new address first.',
  )
}

/**
 * Whether the account has a password its owner chose: deleting the account asks for it, and an account
 * without one proves itself with a fresh sign-in instead (src/privacy/deletion.ts). Any password written
 * through Payload counts, except the random ones the service sets itself.
 */
export const notePasswordSet: CollectionBeforeChangeHook<User> = ({ data, req }) =>
  typeof data.password === 'string' && data.password !== ''
    ? { ...data, passwordSet: req.context[RANDOM_PASSWORD] !== true }
    : data

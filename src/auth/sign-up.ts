import crypto from 'node:crypto'

import type { Payload, PayloadRequest } from 'payload'

import { inTransaction } from '../db/transaction'
import { existingAccountEmail, verifyEmail } from '../email/account-emails'
import { queueEmail } from '../email/send-task'
import { ServiceError } from '../http/errors'
import { sameSitePath } from '../http/paths'
import type { User } from '../payload-types'
import { spendOnePasswordHash } from './password-hash'
import { normaliseEmail } from './magic-link'
import { proveOwnership } from './ownership'
import { enforceRateLimit } from './rate-limit'
import { consumeAuthToken, issueAuthToken } from './tokens'

export const VERIFY_TTL_MS = 24 * 60 * 60 * 1000
export const MIN_PASSWORD_LENGTH = 10

export type Context = { serverUrl: string; productName: string; address: string | null }

/**
 * The cookie that ties a confirmation link to the browser that signed up. A confirmation proves the
 * email, not the password: whoever signed up may not own the address. So the password chosen at
 * sign-up survives the confirmation only in the browser that chose it (this cookie holds an HMAC of
 * the link's token under a key derived from PAYLOAD_SECRET); a link opened anywhere else ends every
 * session, replaces the password and asks the address's owner for a new one before signing in.
 */
export const SIGN_UP_COOKIE = 'kit-signup'

const browserKey = (secret: string) =>
  Buffer.from(crypto.hkdfSync('sha256', secret, Buffer.alloc(0), 'sign-up-browser/v1', 32))

/** What the sign-up browser's cookie holds for this confirmation token. */
const browserProofOf = (secret: string, token: string) =>
  crypto.createHmac('sha256', browserKey(secret)).update(token).digest('base64url')

const sameProof = (secret: string, token: string, presented: string | null | undefined) => {
  if (typeof presented !== 'string' || presented.length > 100) return false
  const expected = Buffer.from(browserProofOf(secret, token))
  const given = Buffer.from(presented)
  return given.length === expected.length && crypto.timingSafeEqual(given, expected)
}

/** The Set-Cookie value for the sign-up browser (`value` null clears it). Scoped to the callback, where it is read. */
export const signUpCookie = (serverUrl: string, value: string | null) =>
  `${SIGN_UP_COOKIE}=${value ?? ''}; Path=/auth/callback; HttpOnly; SameSite=Lax; Max-Age=${value ? VERIFY_TTL_MS / 1000 : 0}${serverUrl.startsWith('https://') ? '; Secure' : ''}`

/**
 * Create a customer account with email and password and email a confirmation link. An email that
 * already has an account gets the same answer, at about the same cost (a password hash either way),
 * and its owner gets a "you already have an account" email instead: no account enumeration. The
 * answer is the sign-up browser's proof for SIGN_UP_COOKIE: for an existing account, random bytes of
 * the same shape, so the cookie tells nothing either.
 */
export const signUpWithPassword = async (
  payload: Payload,
  input: { email?: unknown; password?: unknown; name?: unknown; next?: unknown },
  context: Context,
): Promise<{ browserProof: string }> => {
  const email = normaliseEmail(input.email)
  if (
    typeof input.password !== 'string' ||
    input.password.length < MIN_PASSWORD_LENGTH ||
    input.password.length > 200
  ) {
    throw new ServiceError(400, 'weak_password', `Use a password of ${MIN_PASSWORD_LENGTH} to 200 characters.`)
  }
  const password = input.password
  await enforceRateLimit(payload, 'sign_up', { address: context.address, email })
  const next = sameSitePath(input.next, context.serverUrl)
  return inTransaction(payload, async (req) => {
    const existing = (
      await payload.find({
        collection: 'users',
        where: { email: { equals: email } },
        limit: 1,
        depth: 0,
        req,
        overrideAccess: true,
      })
    ).docs[0]
    if (existing) {
      // Creating the account would hash the password: spend the same here (and off the event loop).
      await spendOnePasswordHash()
      await queueEmail(req, { to: email, ...existingAccountEmail(context.productName, `${context.serverUrl}/sign-in`) })
      return { browserProof: crypto.randomBytes(32).toString('base64url') }
    }
    const user = await payload.create({
      collection: 'users',
      data: {
        email,
        password,
        name: typeof input.name === 'string' ? input.name.slice(0, 120) : undefined,
        roles: ['customer'],
      },
      req,
      overrideAccess: true,
    })
    const token = await sendConfirmation(req, user, next, context)
    return { browserProof: browserProofOf(payload.secret, token) }
  })
}

export type Confirmed =
  /** Signed in: the password chosen at sign-up keeps working (same browser, or the account was verified already). */
  | { user: User; next: string | null; recoveryToken?: undefined }
  /** The address is proven but the password is not: the owner chooses one with this reset token before signing in. */
  | { user: User; next: string | null; recoveryToken: string }

/**
 * Confirm a sign-up from its link. The address is verified, every other session ends, and purchases
 * made with the address are claimed. Opened in the browser that signed up (its SIGN_UP_COOKIE
 * proof), the password chosen at sign-up keeps working and the link signs in. Opened anywhere else,
 * the link proves only the email: the sign-up's password is replaced (it may be a squatter's), OAuth
 * identities linked before are unlinked, and the answer carries a reset token so the owner chooses a
 * new password before any session is given. A link issued for an address the account no longer has
 * is refused.
 */
export const confirmEmail = async (
  payload: Payload,
  token: string,
  browserProof?: string | null,
): Promise<Confirmed | null> => {
  const consumed = await consumeAuthToken(payload, 'verify_email', token)
  if (!consumed?.userId) return null
  const keepPassword = sameProof(payload.secret, token, browserProof)
  return inTransaction(payload, async (req): Promise<Confirmed | null> => {
    const account = (
      await payload.find({
        collection: 'users',
        where: { id: { equals: consumed.userId } },
        limit: 1,
        depth: 0,
        req,
        overrideAccess: true,
      })
    ).docs[0]
    if (!account || account.email !== consumed.email) return null
    if (account.emailVerified || keepPassword)
      return { user: await proveOwnership(req, account, { keepPassword: true }), next: consumed.next }
    const user = await proveOwnership(req, account)
    const recoveryToken = await payload.forgotPassword({
      collection: 'users',
      data: { email: account.email },
      disableEmail: true,
      req,
    })
    if (!recoveryToken) return null
    return { user, next: consumed.next, recoveryToken }
  })
}

/**
 * "Email me a new confirmation link": a fresh link (the older ones stop working) when the address
 * has an unverified account; nothing otherwise. The caller answers the same either way.
 */
export const resendConfirmation = async (
  payload: Payload,
  input: { email?: unknown },
  context: Context,
): Promise<void> => {
  const email = normaliseEmail(input.email)
  await enforceRateLimit(payload, 'confirmation', { address: context.address, email })
  await inTransaction(payload, async (req) => {
    const account = (
      await payload.find({
        collection: 'users',
        where: { email: { equals: email } },
        limit: 1,
        depth: 0,
        req,
        overrideAccess: true,
      })
    ).docs[0]
    if (!account || account.emailVerified) return
    await sendConfirmation(req, account, null, context)
  })
}

const sendConfirmation = async (
  req: PayloadRequest,
  user: Pick<User, 'id' | 'email'>,
  next: string | null,
  context: Context,
): Promise<string> => {
  const token = await issueAuthToken(req, {
    purpose: 'verify_email',
    email: user.email,
    userId: user.id,
    next,
    ttlMs: VERIFY_TTL_MS,
  })
  await queueEmail(req, {
    to: user.email,
    ...verifyEmail(context.productName, `${context.serverUrl}/auth/callback?type=verify&token=${token}`),
  })
  return token
}

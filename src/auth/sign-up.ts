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
 * Create a customer account with email and password and email a confirmation link. An email that
 * already has an account gets the same answer, at about the same cost (a password hash either way),
 * and its owner gets a "you already have an account" email instead: no account enumeration.
 */
export const signUpWithPassword = async (
  payload: Payload,
  input: { email?: unknown; password?: unknown; name?: unknown; next?: unknown },
  context: Context,
): Promise<void> => {
  const email = normaliseEmail(input.email)
  if (typeof input.password !== 'string' || input.password.length < MIN_PASSWORD_LENGTH || input.password.length > 200) {
    throw new ServiceError(400, 'weak_password', `Use a password of ${MIN_PASSWORD_LENGTH} to 200 characters.`)
  }
  const password = input.password
  await enforceRateLimit(payload, 'sign_up', { address: context.address, email })
  const next = sameSitePath(input.next, context.serverUrl)
  await inTransaction(payload, async (req) => {
    const existing = (await payload.find({ collection: 'users', where: { email: { equals: email } }, limit: 1, depth: 0, req, overrideAccess: true })).docs[0]
    if (existing) {
      // Creating the account would hash the password: spend the same here (and off the event loop).
      await spendOnePasswordHash()
      await queueEmail(req, { to: email, ...existingAccountEmail(context.productName, `${context.serverUrl}/sign-in`) })
      return
    }
    const user = await payload.create({
      collection: 'users',
      data: { email, password, name: typeof input.name === 'string' ? input.name.slice(0, 120) : undefined, roles: ['customer'] },
      req,
      overrideAccess: true,
    })
    await sendConfirmation(req, user, next, context)
  })
}

/**
 * Confirm one's own sign-up from its link: verified (the password chosen at sign-up keeps working),
 * every other session ended, purchases made with the address claimed, signed in. A link issued for
 * an address the account no longer has is refused.
 */
export const confirmEmail = async (payload: Payload, token: string): Promise<{ user: User; next: string | null } | null> => {
  const consumed = await consumeAuthToken(payload, 'verify_email', token)
  if (!consumed?.userId) return null
  const user = await inTransaction(payload, async (req) => {
    const account = (await payload.find({ collection: 'users', where: { id: { equals: consumed.userId } }, limit: 1, depth: 0, req, overrideAccess: true })).docs[0]
    if (!account || account.email !== consumed.email) return null
    return proveOwnership(req, account, { keepPassword: true })
  })
  return user ? { user, next: consumed.next } : null
}

/**
 * "Email me a new confirmation link": a fresh link (the older ones stop working) when the address
 * has an unverified account; nothing otherwise. The caller answers the same either way.
 */
export const resendConfirmation = async (payload: Payload, input: { email?: unknown }, context: Context): Promise<void> => {
  const email = normaliseEmail(input.email)
  await enforceRateLimit(payload, 'confirmation', { address: context.address, email })
  await inTransaction(payload, async (req) => {
    const account = (await payload.find({ collection: 'users', where: { email: { equals: email } }, limit: 1, depth: 0, req, overrideAccess: true })).docs[0]
    if (!account || account.emailVerified) return
    await sendConfirmation(req, account, null, context)
  })
}

const sendConfirmation = async (req: PayloadRequest, user: Pick<User, 'id' | 'email'>, next: string | null, context: Context) => {
  const token = await issueAuthToken(req, { purpose: 'verify_email', email: user.email, userId: user.id, next, ttlMs: VERIFY_TTL_MS })
  await queueEmail(req, { to: user.email, ...verifyEmail(context.productName, `${context.serverUrl}/auth/callback?type=verify&token=${token}`) })
}

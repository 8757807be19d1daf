import crypto from 'node:crypto'

import type { Payload } from 'payload'

import { inTransaction } from '../db/transaction'
import { existingAccountEmail, verifyEmail } from '../email/account-emails'
import { ServiceError } from '../http/errors'
import { sameSitePath } from '../http/paths'
import { claimPurchases } from '../billing/customers'
import type { User } from '../payload-types'
import { normaliseEmail } from './magic-link'
import { enforceRateLimit } from './rate-limit'
import { consumeAuthToken, issueAuthToken } from './tokens'

export const VERIFY_TTL_MS = 24 * 60 * 60 * 1000
export const MIN_PASSWORD_LENGTH = 10

type Context = { serverUrl: string; productName: string; address: string | null }

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
      // Payload hashes with PBKDF2-SHA256, 25,000 rounds: spend the same here.
      crypto.pbkdf2Sync(password, crypto.randomBytes(32), 25_000, 512, 'sha256')
      await payload.jobs.queue({ task: 'sendEmail', input: { to: email, ...existingAccountEmail(context.productName, `${context.serverUrl}/sign-in`) }, req })
      return
    }
    const user = await payload.create({
      collection: 'users',
      data: { email, password, name: typeof input.name === 'string' ? input.name.slice(0, 120) : undefined, roles: ['customer'] },
      req,
      overrideAccess: true,
    })
    const token = await issueAuthToken(req, { purpose: 'verify_email', email, userId: user.id, next, ttlMs: VERIFY_TTL_MS })
    const url = `${context.serverUrl}/auth/callback?type=verify&token=${token}`
    await payload.jobs.queue({ task: 'sendEmail', input: { to: email, ...verifyEmail(context.productName, url) }, req })
  })
}

/** Confirm an email address from its link: verified, purchases made with it claimed, signed in. */
export const confirmEmail = async (payload: Payload, token: string): Promise<{ user: User; next: string | null } | null> => {
  const consumed = await consumeAuthToken(payload, 'verify_email', token)
  if (!consumed?.userId) return null
  const user = await inTransaction(payload, async (req) => {
    const verified = await payload.update({ collection: 'users', id: consumed.userId!, data: { emailVerified: true }, req, overrideAccess: true })
    await claimPurchases(req, verified)
    return verified
  })
  return { user, next: consumed.next }
}

import type { Payload } from 'payload'

import { inTransaction } from '../db/transaction'
import { magicLinkEmail } from '../email/account-emails'
import { queueEmail } from '../email/send-task'
import { ServiceError } from '../http/errors'
import { sameSitePath } from '../http/paths'
import type { User } from '../payload-types'
import { proveOwnership } from './ownership'
import { RANDOM_PASSWORD, randomPassword } from './password-hash'
import { consumeAuthToken, issueAuthToken } from './tokens'

export const MAGIC_LINK_TTL_MS = 10 * 60 * 1000
const EMAIL_PATTERN = /^[^\s@]{1,64}@[^\s@]{1,255}\.[^\s@]{2,}$/

export const normaliseEmail = (value: unknown): string => {
  if (typeof value !== 'string' || value.length > 320 || !EMAIL_PATTERN.test(value.trim())) {
    throw new ServiceError(400, 'invalid_request', 'Enter a valid email address.')
  }
  return value.trim().toLowerCase()
}

/**
 * Email a sign-in link. The answer is the same whether or not an account exists: the link signs in,
 * or creates the customer account on first use. A newer link supersedes older ones.
 */
export const requestMagicLink = async (
  payload: Payload,
  options: { email: string; next?: unknown; serverUrl: string; productName: string },
): Promise<void> => {
  const next = sameSitePath(options.next, options.serverUrl)
  await inTransaction(payload, async (req) => {
    const existing = (
      await payload.find({ collection: 'users', where: { email: { equals: options.email } }, limit: 1, depth: 0, req })
    ).docs[0]
    const token = await issueAuthToken(req, {
      purpose: 'magic_link',
      email: options.email,
      userId: existing?.id ?? null,
      next,
      ttlMs: MAGIC_LINK_TTL_MS,
    })
    const url = `${options.serverUrl}/auth/callback?type=magiclink&token=${token}`
    await queueEmail(req, { to: options.email, ...magicLinkEmail(options.productName, url) })
  })
}

/**
 * Use a magic link: sign in as the account with that email, or create it (a customer whose email is
 * verified by this very link). An unverified account entered this way is taken over by the address's
 * owner (see proveOwnership). Purchases made with the address are claimed as it becomes verified,
 * in this transaction (the billing plugin's hook on users). Returns the user and where to go next.
 */
export const signInWithMagicLink = async (
  payload: Payload,
  token: string,
): Promise<{ user: User; next: string | null } | null> => {
  const consumed = await consumeAuthToken(payload, 'magic_link', token)
  if (!consumed) return null
  const user = await inTransaction(payload, async (req) => {
    const found = (
      await payload.find({
        collection: 'users',
        where: { email: { equals: consumed.email } },
        limit: 1,
        depth: 0,
        req,
        overrideAccess: true,
      })
    ).docs[0]
    return found
      ? await proveOwnership(req, found)
      : await payload.create({
          collection: 'users',
          data: {
            email: consumed.email,
            roles: ['customer'],
            emailVerified: true,
            password: randomPassword(),
          },
          req,
          overrideAccess: true,
          context: { [RANDOM_PASSWORD]: true },
          disableVerificationEmail: true,
        })
  })
  return { user, next: consumed.next }
}

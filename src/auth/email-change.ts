import type { Payload } from 'payload'

import { inTransaction } from '../db/transaction'
import { emailChangeEmail, emailChangeNotice } from '../email/account-emails'
import { queueEmail } from '../email/send-task'
import { ServiceError } from '../http/errors'
import type { User } from '../payload-types'
import { normaliseEmail } from './magic-link'
import { requireCurrentPassword } from './password-hash'
import { endEverySession } from './ownership'
import { enforceRateLimit } from './rate-limit'
import type { Context } from './sign-up'
import { consumeAuthToken, issueAuthToken } from './tokens'

const EMAIL_CHANGE_TTL_MS = 24 * 60 * 60 * 1000

/**
 * A signed-in user asks for a new email address, proving their current password. Nothing changes yet: the address is recorded as
 * pending, a link bound to it goes to the new address, and the current address gets a notice. An
 * address that already has an account gets no link, but the same answer (no enumeration).
 */
export const requestEmailChange = async (
  payload: Payload,
  user: User,
  input: { email?: unknown; currentPassword?: unknown },
  context: Context,
): Promise<string> => {
  const email = normaliseEmail(input.email)
  await enforceRateLimit(payload, 'email_change', { address: context.address, email: user.email })
  // A session alone (perhaps a stolen one) does not move the account to another address.
  await requireCurrentPassword(payload, user, input.currentPassword, {
    address: context.address,
    hint: 'Send your current password as currentPassword (no password yet? Set one with "Forgot your password?").',
  })
  if (email === user.email) throw new ServiceError(400, 'email_unchanged', 'That is already your email address.')
  await inTransaction(payload, async (req) => {
    await payload.update({ collection: 'users', id: user.id, data: { pendingEmail: email }, req, overrideAccess: true })
    const { totalDocs: taken } = await payload.count({
      collection: 'users',
      where: { email: { equals: email } },
      req,
      overrideAccess: true,
    })
    if (!taken) {
      const token = await issueAuthToken(req, {
        purpose: 'email_change',
        email,
        userId: user.id,
        ttlMs: EMAIL_CHANGE_TTL_MS,
      })
      await queueEmail(req, {
        to: email,
        ...emailChangeEmail(
          context.productName,
          user.email,
          `${context.serverUrl}/auth/callback?type=email_change&token=${token}`,
        ),
      })
    }
    await queueEmail(req, {
      to: user.email,
      ...emailChangeNotice(context.productName, email, `${context.serverUrl}/reset-password`),
    })
  })
  return email
}

/**
 * The link sent to the new address was opened: if it is still the pending address and no other
 * account took it meanwhile, it becomes the account's (verified) email, every session ends, and
 * purchases made with it are claimed. Null for anything else.
 */
export const confirmEmailChange = async (payload: Payload, token: string): Promise<User | null> => {
  const consumed = await consumeAuthToken(payload, 'email_change', token)
  if (!consumed?.userId) return null
  return inTransaction(payload, async (req) => {
    const user = (
      await payload.find({
        collection: 'users',
        where: { id: { equals: consumed.userId } },
        limit: 1,
        depth: 0,
        req,
        overrideAccess: true,
      })
    ).docs[0]
    if (!user || user.pendingEmail !== consumed.email) return null
    const { totalDocs: taken } = await payload.count({
      collection: 'users',
      where: { email: { equals: consumed.email } },
      req,
      overrideAccess: true,
    })
    if (taken) return null
    // The billing plugin's hook on users claims the purchases made with the new address, in this transaction.
    const changed = await payload.update({
      collection: 'users',
      id: user.id,
      data: { email: consumed.email, pendingEmail: null, emailVerified: true },
      req,
      overrideAccess: true,
    })
    await endEverySession(req, user.id)
    return changed
  })
}

import type { Payload } from 'payload'

import { inTransaction } from '../db/transaction'
import { passwordResetEmail } from '../email/account-emails'
import { queueEmail } from '../email/send-task'
import { ServiceError } from '../http/errors'
import { normaliseEmail } from './magic-link'
import { proveOwnership } from './ownership'
import { enforceRateLimit } from './rate-limit'
import { MIN_PASSWORD_LENGTH } from './sign-up'
import { storedResetToken } from './tokens'

export const RECOVERY_COOKIE = 'kit-recovery'

/** The recovery token in an HttpOnly cookie for 15 minutes: the reset page's only way to a new password. */
export const recoveryCookie = (serverUrl: string, token: string) =>
  `${RECOVERY_COOKIE}=${encodeURIComponent(token)}; Path=/; HttpOnly; SameSite=Lax; Max-Age=900${serverUrl.startsWith('https://') ? '; Secure' : ''}`

/**
 * Payload's forgot-password flow with our email: the link's host is SERVER_URL, never the request's
 * Host header. The same answer whether or not the email has an account. The users row keeps only the
 * token's SHA-256 (a hook on users); the link, in the queued email, is sealed.
 */
export const requestPasswordReset = async (
  payload: Payload,
  input: { email?: unknown },
  context: { serverUrl: string; productName: string; address: string | null },
): Promise<void> => {
  const email = normaliseEmail(input.email)
  await enforceRateLimit(payload, 'password_reset', { address: context.address, email })
  await inTransaction(payload, async (req) => {
    const token = await payload.forgotPassword({ collection: 'users', data: { email }, disableEmail: true, req })
    if (!token) return
    const url = `${context.serverUrl}/auth/callback?type=recovery&token=${encodeURIComponent(token)}`
    await queueEmail(req, { to: email, ...passwordResetEmail(context.productName, url) })
  })
}

/** Whether a reset token is current (unused and not expired); it is consumed only by the new password. */
export const isRecoveryTokenValid = async (payload: Payload, token: string): Promise<boolean> => {
  if (!/^[A-Za-z0-9]{10,200}$/.test(token)) return false
  const { totalDocs } = await payload.count({
    collection: 'users',
    where: {
      and: [
        { resetPasswordToken: { equals: storedResetToken(token) } },
        { resetPasswordExpiration: { greater_than: new Date().toISOString() } },
      ],
    },
    overrideAccess: true,
  })
  return totalDocs === 1
}

/**
 * Set the new password with a recovery token. Payload ends every session of the user and clears the
 * token (single use); an unverified account becomes verified (the link proved the address) and claims
 * its purchases; the caller signs the user in afresh.
 */
export const completePasswordReset = async (payload: Payload, token: string, password: unknown): Promise<number> => {
  if (typeof password !== 'string' || password.length < MIN_PASSWORD_LENGTH || password.length > 200) {
    throw new ServiceError(400, 'weak_password', `Use a password of ${MIN_PASSWORD_LENGTH} to 200 characters.`)
  }
  if (!/^[A-Za-z0-9]{10,200}$/.test(token))
    throw new ServiceError(400, 'invalid_link', 'This reset link was used or has expired. Ask for a new one.')
  try {
    return await inTransaction(payload, async (req) => {
      const result = await payload.resetPassword({
        collection: 'users',
        data: { token, password },
        overrideAccess: true,
        req,
      })
      const user = await payload.findByID({
        collection: 'users',
        id: (result.user as { id: number }).id,
        depth: 0,
        overrideAccess: true,
        req,
      })
      // The link reached the address: it is verified now, and whatever an earlier holder set up ends.
      await proveOwnership(req, user, { keepPassword: true })
      // Payload's reset writes the hash without the collection's hooks: the owner has chosen a password.
      if (!user.passwordSet)
        await payload.update({
          collection: 'users',
          id: user.id,
          data: { passwordSet: true },
          overrideAccess: true,
          req,
        })
      return user.id
    })
  } catch {
    throw new ServiceError(400, 'invalid_link', 'This reset link was used or has expired. Ask for a new one.')
  }
}

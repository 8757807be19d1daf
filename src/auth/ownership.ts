import type { PayloadRequest } from 'payload'

import type { User } from '../payload-types'
import { RANDOM_PASSWORD, randomPassword } from './password-hash'

/**
 * The first proof that someone owns an unverified account's address (a magic link, an OAuth email the
 * provider verified, a reset link). Whoever signed the account up may not have owned the address, so
 * from now on nothing they set up works: every session ends, OAuth identities linked before are
 * unlinked, and unless the proof sets a new password itself, the old one is replaced by a random one
 * (the owner can choose one through a reset). A verified account is returned as it is. Verifying
 * through the Local API on `req` lets the billing plugin's hook on users claim the address's
 * purchases in the same transaction.
 */
export const proveOwnership = async (
  req: PayloadRequest,
  user: User,
  options: { keepPassword?: boolean } = {},
): Promise<User> => {
  if (user.emailVerified) return user
  const data = options.keepPassword ? { emailVerified: true } : { emailVerified: true, password: randomPassword() }
  const verified = await req.payload.update({
    collection: 'users',
    id: user.id,
    data,
    req,
    overrideAccess: true,
    context: { [RANDOM_PASSWORD]: true },
  })
  await endEverySession(req, user.id)
  await req.payload.delete({
    collection: 'oauth_identities',
    where: { user: { equals: user.id } },
    req,
    overrideAccess: true,
  })
  return verified
}

/** Sign the user out everywhere (Payload checks each JWT's session id against this list). */
export const endEverySession = async (req: PayloadRequest, userId: number) => {
  await req.payload.db.updateOne({
    collection: 'users',
    where: { id: { equals: userId } },
    data: { sessions: [] },
    req,
    returning: false,
  })
}

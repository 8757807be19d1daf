import { createLocalReq, getFieldsToSign, jwtSign, logoutOperation, type Payload } from 'payload'
import { addSessionToUser } from 'payload/shared'

import { endEverySession } from './ownership'

/**
 * Sign a user in without a password (magic link, OAuth, password recovery): a session exactly like
 * Payload's own login creates, and the JWT for its cookie. `endOtherSessions` signs every other
 * device out (after a password reset).
 */
export const issueSession = async (
  payload: Payload,
  userId: number,
  options: { endOtherSessions?: boolean } = {},
): Promise<{ token: string; exp: number }> => {
  const collectionConfig = payload.collections.users.config
  const req = await createLocalReq({}, payload)
  if (options.endOtherSessions) await endEverySession(req, userId)
  const user = await payload.findByID({
    collection: 'users',
    id: userId,
    depth: 0,
    showHiddenFields: true,
    overrideAccess: true,
    req,
  })
  const { sid } = await addSessionToUser({ collectionConfig, payload, req, user: { ...user, collection: 'users' } })
  const fieldsToSign = getFieldsToSign({
    collectionConfig,
    email: user.email,
    user: { ...user, collection: 'users' },
    ...(sid ? { sid } : {}),
  })
  const { exp, token } = await jwtSign({
    fieldsToSign,
    secret: payload.secret,
    tokenExpiration: collectionConfig.auth.tokenExpiration,
  })
  return { exp, token }
}

/**
 * Sign-out on the server: the session named in this request's JWT is removed from the user, so the
 * token stops authenticating even where a copy of it survives the cleared cookie.
 */
export const endCurrentSession = async (payload: Payload, headers: Headers): Promise<void> => {
  const { user } = await payload.auth({ headers })
  if (!user || user.collection !== 'users') return
  const req = await createLocalReq({ user }, payload)
  await logoutOperation({ collection: payload.collections.users, req })
}

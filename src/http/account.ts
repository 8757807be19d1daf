import type { PayloadRequest } from 'payload'

import type { User } from '../payload-types'
import { ServiceError } from './errors'

/** The request's signed-in customer account: a `users` user (an API user of another collection is none), or null. */
export const accountOf = (req: Pick<PayloadRequest, 'user'>): User | null =>
  req.user?.collection === 'users' ? req.user : null

/** The request's signed-in account, or 401 `unauthenticated` saying what to sign in for. */
export const requireAccount = (req: Pick<PayloadRequest, 'user'>, message: string): User => {
  const user = accountOf(req)
  if (!user) throw new ServiceError(401, 'unauthenticated', message)
  return user
}

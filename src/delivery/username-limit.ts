import type { Payload } from 'payload'

import { asRateLimited, limiterOf } from '../auth/rate-limit'

/** Count one new username for the user; past the limit, 429 `rate_limited` with Retry-After. */
export const countUsernameChange = async (payload: Payload, userId: number): Promise<void> => {
  try {
    await limiterOf(payload, 'repo_username:user').consume(String(userId))
  } catch (error) {
    throw asRateLimited(error, 'username changes')
  }
}

/**
 * Give the point back when no invitation was spent: the code host was unavailable, or the username
 * was refused (`username_has_access`), or it turned out to be the user's own standing invitation.
 */
export const refundUsernameChange = async (payload: Payload, userId: number): Promise<void> => {
  await limiterOf(payload, 'repo_username:user').reward(String(userId))
}

import type { Payload } from 'payload'

import { asRateLimited, limiterPerInstance } from '../auth/rate-limit'

/**
 * New usernames one account may ask for per window (seconds): each one is an invitation on the code
 * host, whose daily invitation quota every customer shares. A new invitation for the username one holds
 * (the old one expired or vanished) counts too; asking again while it stands does not.
 */
export const USERNAME_CHANGES: { points: number; durationSeconds: number } = { points: 5, durationSeconds: 24 * 3600 }

const limiterOf = limiterPerInstance('repo_username:user', USERNAME_CHANGES)

/** Count one new username for the user; past the limit, 429 `rate_limited` with Retry-After. */
export const countUsernameChange = async (payload: Payload, userId: number): Promise<void> => {
  try {
    await limiterOf(payload).consume(String(userId))
  } catch (error) {
    throw asRateLimited(error, 'username changes')
  }
}

/**
 * Give the point back when no invitation was spent: the code host was unavailable, or the username
 * was refused (`username_has_access`), or it turned out to be the user's own standing invitation.
 */
export const refundUsernameChange = async (payload: Payload, userId: number): Promise<void> => {
  await limiterOf(payload).reward(String(userId))
}

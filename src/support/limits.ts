import type { Payload } from 'payload'

import { asRateLimited, limiterOf } from '../auth/rate-limit'

type Kind = 'requests' | 'followUps'

/** What a refusal says there are too many of. */
const WHAT: Record<Kind, string> = { requests: 'support requests', followUps: 'follow-up messages' }

/** Count one message of the customer; past the limit, 429 `rate_limited` with Retry-After. */
export const countSupportMessage = async (payload: Payload, kind: Kind, userId: number): Promise<void> => {
  try {
    await limiterOf(payload, `support_${kind}:user`).consume(String(userId))
  } catch (error) {
    throw asRateLimited(error, WHAT[kind])
  }
}

import type { Payload } from 'payload'

import { asRateLimited, limiterOf } from '../auth/rate-limit'
import type { CodeHost } from './code-host'

/** The code host as one customer's request sees it: every call counted against the account's budget. */
export type BudgetedCodeHost = CodeHost & {
  /** Calls made so far through this handle. */
  readonly calls: number
  /** Give the opening point back when no call was made (the request found nothing to ask). */
  close: () => Promise<void>
}

/**
 * Open the account's budget for one request: it takes the request's first point now, so a request
 * over the budget is refused (429 `rate_limited` with Retry-After) before it makes any call. Each
 * further call of the request is counted as it is made, and never refused half-way: a request that
 * started finishes what it does on the code host (an invitation sent is recorded or taken back), so it
 * can go a few calls past the budget, and the next request is refused.
 */
export const openCodeHostBudget = async (
  payload: Payload,
  userId: number,
  host: CodeHost,
): Promise<BudgetedCodeHost> => {
  const limiter = limiterOf(payload, 'code_host_calls:user')
  const key = String(userId)
  try {
    await limiter.consume(key)
  } catch (error) {
    throw asRateLimited(error, 'requests to the code host')
  }
  let calls = 0
  let closed = false
  const counted =
    <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      // The first call was paid when the budget was opened.
      if (calls > 0) await limiter.penalty(key, 1)
      calls += 1
      return call(...args)
    }
  return {
    invite: counted(host.invite),
    isCollaborator: counted(host.isCollaborator),
    invitationsOf: counted(host.invitationsOf),
    withdrawInvitation: counted(host.withdrawInvitation),
    remove: counted(host.remove),
    get calls() {
      return calls
    },
    close: async () => {
      if (closed) return
      closed = true
      if (calls === 0) await limiter.reward(key, 1)
    },
  }
}

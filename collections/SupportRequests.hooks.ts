import type { CollectionBeforeChangeHook, CollectionBeforeValidateHook } from 'payload'
import { ValidationError } from 'payload'

import { isStaffUser } from '../src/access/roles'
import { relationId } from '../src/db/relations'
import { accountOf } from '../src/http/account'
import { canAccessFeature } from '../src/licensing/entitlements'
import type { SupportRequest } from '../src/payload-types'
import { SUPPORT_FEATURE } from '../src/support/feature'
import { countSupportMessage } from '../src/support/limits'

/** The support requests collection's hooks (collections/SupportRequests.ts); trimText serves the replies too. */

/** Text is stored trimmed, so a subject or message of spaces only is empty, and refused as missing. */
export const trimText =
  (names: string[], singleLine: string[] = []): CollectionBeforeValidateHook =>
  ({ data }) => {
    if (!data) return data
    const next = { ...data }
    for (const name of names) {
      const value: unknown = next[name]
      if (typeof value === 'string')
        next[name] = singleLine.includes(name) ? value.replace(/\s+/g, ' ').trim() : value.trim()
    }
    return next
  }

/**
 * A new request: the signed-in user files it for themselves (the service, with no user, names one),
 * it starts open, and its priority comes from the owner's plans: `high` with the `support` key. The
 * body never decides any of them (their fields refuse API input). Customers are rate-limited.
 */
export const fileSupportRequest: CollectionBeforeChangeHook<SupportRequest> = async ({ data, operation, req }) => {
  if (operation !== 'create') return data
  const requester = accountOf(req)
  const owner = requester?.id ?? relationId(data.user)
  if (!owner)
    throw new ValidationError(
      { collection: 'support_requests', errors: [{ path: 'user', message: 'A support request needs its customer.' }] },
      req.t,
    )
  if (requester && !isStaffUser(requester)) await countSupportMessage(req.payload, 'requests', owner)
  const priority = (await canAccessFeature(req.payload, owner, SUPPORT_FEATURE, req)) ? 'high' : 'normal'
  return { ...data, user: owner, priority, status: 'open' }
}

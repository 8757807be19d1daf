import type { PayloadRequest } from 'payload'

import { ServiceError } from '../http/errors'
import { inStaffTransaction, recordAudit } from '../staff/audit'
import { discordFailure } from './discord'
import type { CommunityRuntime } from './runtime'
import { grantsView, linkOf, syncCommunityRoles } from './sync'

/**
 * POST /api/staff/users/:id/community-sync: a customer's roles checked against Discord now, as the
 * periodic check does (a role removed by hand given back, one not earned taken off), and audited.
 */
export const syncCommunityByStaff = async (
  req: PayloadRequest,
  runtime: CommunityRuntime,
  userId: number,
  reason: string,
) => {
  const user = await req.payload.findByID({
    collection: 'users',
    id: userId,
    depth: 0,
    overrideAccess: true,
    disableErrors: true,
  })
  if (!user) throw new ServiceError(404, 'user_not_found', 'There is no user with this id.')
  let outcome
  try {
    outcome = await syncCommunityRoles(req.payload, runtime.deps, userId, { check: true })
  } catch (error) {
    const failure = discordFailure(error)
    throw new ServiceError(
      503,
      'discord_unavailable',
      `Discord could not be reached or refused the bot (${failure.kind}); the roles are synced again within the hour.`,
    )
  }
  // Another process is syncing this customer: it runs again for this request before it lets go.
  if (outcome.outcome === 'deferred')
    throw new ServiceError(409, 'locked', 'These roles are being synced right now. Look again in a minute.')
  const grants = await grantsView(req.payload, userId)
  const link = await linkOf(req.payload, userId)
  const auditLogId = await inStaffTransaction(req, (tx) =>
    recordAudit(tx, {
      action: 'user.community_sync',
      targetCollection: 'users',
      targetId: String(userId),
      reason,
      before: null,
      after: { granted: outcome.granted, revoked: outcome.revoked, failed: outcome.failed },
    }),
  )
  return {
    user: { id: userId },
    link: link?.discord_user_id
      ? { discordUserId: link.discord_user_id, discordUsername: link.discord_username }
      : null,
    grants,
    auditLogId,
  }
}

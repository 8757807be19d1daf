import type { CollectionAfterChangeHook, TaskConfig } from 'payload'

import type { License } from '../payload-types'
import { type CodeHostProvider, withdrawRepoAccess } from './repo-access'
import { relationId } from '../db/relations'
import { claimedMembersOf } from '../teams/seats'

/** Take repository access back once its license is gone; retried while the code host fails. */
export const withdrawRepoAccessTask = (
  codeHost: CodeHostProvider,
  retryDelayMs: number,
): TaskConfig<'withdrawRepoAccess'> => ({
  slug: 'withdrawRepoAccess',
  label: 'Withdraw repository access',
  // With `username`: take off the code host that one username the user replaced (and its invitation),
  // only when `serviceInvited` says the service invited it itself. Jobs queued before that flag existed
  // lack it: they only give the username's claim back and leave the code host alone.
  inputSchema: [
    { name: 'userId', type: 'number', required: true },
    { name: 'username', type: 'text' },
    { name: 'invitationId', type: 'number' },
    { name: 'serviceInvited', type: 'checkbox' },
  ],
  outputSchema: [{ name: 'result', type: 'text' }],
  retries: { attempts: 12, backoff: { type: 'exponential', delay: retryDelayMs } },
  handler: async ({ input, req }) => {
    const replaced = input.username
      ? {
          username: input.username,
          invitationId: input.invitationId ?? null,
          serviceInvited: input.serviceInvited === true,
        }
      : null
    return { output: { result: await withdrawRepoAccess(req, codeHost, input.userId, replaced) } }
  },
})

/**
 * A license that stops being active (revoked, refunded, expired, suspended) or moves to another plan
 * queues the withdrawal for its owner and for each member with a claimed seat; each keeps the access
 * their other licenses still grant.
 */
export const queueRepoAccessWithdrawal: CollectionAfterChangeHook<License> = async ({
  doc,
  previousDoc,
  operation,
  req,
}) => {
  const planChanged = relationId(doc.plan) !== relationId(previousDoc?.plan)
  if (operation !== 'update' || previousDoc?.status !== 'active' || (doc.status === 'active' && !planChanged))
    return doc
  const owner = relationId(doc.user)
  const members = await claimedMembersOf(req, doc.id)
  for (const userId of new Set([...(owner ? [owner] : []), ...members])) {
    await req.payload.jobs.queue({ task: 'withdrawRepoAccess', input: { userId }, req })
  }
  return doc
}

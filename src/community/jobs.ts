import type { Payload, TaskConfig } from 'payload'

import type { SqlRow } from '../db/rows'
import { community_grants, discord_links } from '../db/schema.generated'
import { bare, executeOn, sql } from '../db/transaction'
import { DiscordFailure } from './discord'
import type { CommunityRuntime } from './runtime'
import { syncCommunityRoles } from './sync'

/** A customer's roles made to match their entitlements; retried while Discord fails or another sync runs. */
export const syncCommunityRolesTask = (
  runtime: () => CommunityRuntime | undefined,
  retryDelayMs: number,
): TaskConfig<'syncCommunityRoles'> => ({
  slug: 'syncCommunityRoles',
  label: "Sync a customer's Discord roles",
  inputSchema: [
    { name: 'userId', type: 'number', required: true },
    // Also compare with the member's roles on Discord (the periodic check, staff's sync).
    { name: 'check', type: 'checkbox' },
  ],
  outputSchema: [{ name: 'result', type: 'text' }],
  retries: { attempts: 12, backoff: { type: 'exponential', delay: retryDelayMs } },
  handler: async ({ input, req }) => {
    const community = runtime()
    if (!community) return { output: { result: 'Discord is not configured' } }
    try {
      const outcome = await syncCommunityRoles(req.payload, community.deps, input.userId, {
        check: input.check === true,
      })
      return { output: { result: JSON.stringify(outcome) } }
    } catch (error) {
      // Discord said when: come back then, as a new job (a retry's backoff would not wait for `retry_after`).
      if (error instanceof DiscordFailure && error.kind === 'rate_limited') {
        await req.payload.jobs.queue({
          task: 'syncCommunityRoles',
          input: { userId: input.userId, check: input.check === true },
          waitUntil: new Date(Date.now() + (error.retryAfterMs ?? 1_000)),
          req,
        })
        return { output: { result: `rate limited by Discord: again in ${error.retryAfterMs} ms` } }
      }
      throw error
    }
  },
})

/** Customers checked per run (every minute): 200 a minute is 12,000 linked accounts an hour. */
const CHECK_BATCH = 200

/** A check queued and not run within this long is queued again. */
const QUEUED_GIVE_UP_MS = 15 * 60_000

/**
 * Every minute: queue a check of each linked account not checked for COMMUNITY_SYNC_MINUTES, and a sync
 * of each unlinked customer with roles still to take back. Each row is claimed by one UPDATE, so two
 * instances running this at once queue each check once.
 */
export const queueDueChecks = async (payload: Payload, syncMinutes: number): Promise<number> => {
  const due = new Date(Date.now() - syncMinutes * 60_000).toISOString()
  const stale = new Date(Date.now() - QUEUED_GIVE_UP_MS).toISOString()
  const claimed = await executeOn<Pick<SqlRow<typeof discord_links>, 'user_id'>>(
    payload,
    undefined,
    sql`UPDATE ${discord_links} SET ${bare(discord_links.syncQueuedAt)} = now()
        WHERE ${discord_links.id} IN (
          SELECT ${discord_links.id} FROM ${discord_links}
          WHERE (${discord_links.syncQueuedAt} IS NULL OR ${discord_links.syncQueuedAt} < ${stale}::timestamptz)
            AND ((${discord_links.discordUserId} IS NOT NULL AND (${discord_links.lastSyncedAt} IS NULL OR ${discord_links.lastSyncedAt} < ${due}::timestamptz))
              OR (${discord_links.discordUserId} IS NULL AND EXISTS (SELECT 1 FROM ${community_grants} WHERE ${community_grants.user} = ${discord_links.user})))
          ORDER BY ${discord_links.lastSyncedAt} NULLS FIRST LIMIT ${CHECK_BATCH}
          FOR UPDATE SKIP LOCKED)
        RETURNING ${discord_links.user}`,
  )
  for (const { user_id } of claimed) {
    await payload.jobs.queue({ task: 'syncCommunityRoles', input: { userId: Number(user_id), check: true } })
  }
  return claimed.length
}

export const checkCommunityTask = (
  runtime: () => CommunityRuntime | undefined,
  scheduled: boolean,
): TaskConfig<'checkCommunity'> => ({
  slug: 'checkCommunity',
  label: 'Check linked Discord accounts against Discord',
  inputSchema: [],
  outputSchema: [{ name: 'queued', type: 'number' }],
  // Scheduled only where Discord is configured: elsewhere it would run every minute for nothing.
  ...(scheduled ? { schedule: [{ cron: '* * * * *', queue: 'default' }] } : {}),
  handler: async ({ req }) => {
    const community = runtime()
    if (!community) return { output: { queued: 0 } }
    return { output: { queued: await queueDueChecks(req.payload, community.syncMinutes) } }
  },
})

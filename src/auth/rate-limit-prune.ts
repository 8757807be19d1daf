import type { Payload, TaskConfig } from 'payload'

import { executeOn, sql } from '../db/transaction'
import { RATE_LIMIT_TABLE } from './rate-limit'

/**
 * rate-limiter-flexible's own table, not a Payload collection (the adapter's tablesFilter leaves it out),
 * so it has no generated table: its name is the limiter's, its columns (key, points, expire) the library's layout.
 */
const RATE_LIMITS = sql.identifier(RATE_LIMIT_TABLE)

/** Rows deleted per statement: short locks, and a large backlog still goes in one run. */
export const PRUNE_BATCH = 5_000

/**
 * Delete the rate-limit rows whose window has passed. Every new client address, email or license
 * key tried adds a row (rate-limiter-flexible keeps them until the key is used again), so without
 * this a stream of random keys grows the table for good. An expired row counts for nothing: removing
 * it changes no limit. Rows with no expiry (none of the service's limiters make them) are kept.
 */
export const pruneRateLimits = async (payload: Payload, now = Date.now()): Promise<number> => {
  let deleted = 0
  for (;;) {
    const rows = await executeOn<{ key: string }>(
      payload,
      undefined,
      sql`DELETE FROM ${RATE_LIMITS} WHERE ctid IN (SELECT ctid FROM ${RATE_LIMITS} WHERE expire IS NOT NULL AND expire < ${now} LIMIT ${PRUNE_BATCH}) RETURNING key`,
    )
    deleted += rows.length
    if (rows.length < PRUNE_BATCH) break
  }
  if (deleted > 0) payload.logger.info({ msg: 'expired rate-limit rows deleted', count: deleted })
  return deleted
}

/** Every hour (at minute 17, off the hour's other work), through the jobs worker. */
export const pruneRateLimitsTask: TaskConfig<'pruneRateLimits'> = {
  slug: 'pruneRateLimits',
  label: 'Delete expired rate-limit rows',
  inputSchema: [],
  outputSchema: [{ name: 'deleted', type: 'number' }],
  schedule: [{ cron: '17 * * * *', queue: 'default' }],
  handler: async ({ req }) => ({ output: { deleted: await pruneRateLimits(req.payload) } }),
}

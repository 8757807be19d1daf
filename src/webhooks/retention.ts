import type { Payload, TaskConfig } from 'payload'

import type { SqlRow } from '../db/rows'
import {
  payload_jobs,
  payload_locked_documents,
  payload_locked_documents_rels,
  payload_preferences,
  webhook_deliveries,
  webhook_events,
} from '../db/schema.generated'
import { execute, inTransaction, sql } from '../db/transaction'

/** Events per batch (each in its own short transaction), with their deliveries: a large backlog never holds long locks. */
export const RETENTION_BATCH = 1_000

const DAY_MS = 24 * 60 * 60 * 1000

export type RetentionResult = { events: number; deliveries: number }

/**
 * Which events may go, as a condition on a `webhook_events` row (docs/WEBHOOKS.md, "Retention"):
 * - created before the cut-off (`now` minus the retention period);
 * - no delivery of it made since the cut-off (an admin's "Send again" keeps it, with its history, for another period);
 * - no delivery of it waiting for a next attempt (`nextAttemptAt` still to come);
 * - no `deliverWebhook` job of it that may still run (not completed, not failed for good): a first attempt
 *   not made yet, a retry waiting its turn, an attempt running now.
 * The job is queued in the transaction that records the attempt before it, so at any moment a
 * snapshot of the database shows either that attempt's job or the next one's: an event whose
 * attempts are not over always has one of them.
 */
const removable = (cutoff: string, now: string) => sql`
  ${webhook_events.createdAt} < ${cutoff}
  AND NOT EXISTS (
    SELECT 1 FROM ${webhook_deliveries}
    WHERE ${webhook_deliveries.event} = ${webhook_events.id}
      AND (${webhook_deliveries.createdAt} >= ${cutoff} OR ${webhook_deliveries.nextAttemptAt} > ${now}))
  AND NOT EXISTS (
    SELECT 1 FROM ${payload_jobs}
    WHERE ${payload_jobs.taskSlug} = 'deliverWebhook'
      AND ${payload_jobs.completedAt} IS NULL
      AND ${payload_jobs.hasError} IS NOT TRUE
      AND ${payload_jobs.input} ->> 'event' = ${webhook_events.id}::text)`

/**
 * One batch, in one transaction. First the oldest removable events are locked (`FOR UPDATE SKIP
 * LOCKED`: a second instance running this at the same time takes other events, and an event whose
 * delivery is being recorded right now, which holds a key-share lock on it, is left for the next run).
 * Then, in a statement with a fresh snapshot, the rule is checked again on the locked events (a
 * delivery or job committed between the two counts; while they are locked no delivery, nor the retry
 * queued with it, can be added) and they go with what refers to them: their deliveries first (their `event_id` is NOT NULL, so the
 * foreign key's ON DELETE SET NULL would refuse), the admin's edit locks and per-document preferences
 * of both, as Payload's own delete does; the locks' rels rows go by their cascades.
 */
const deleteBatch = (payload: Payload, cutoff: string, now: string): Promise<RetentionResult & { locked: number }> =>
  inTransaction(payload, async (req) => {
    const locked = await execute<Pick<SqlRow<typeof webhook_events>, 'id'>>(
      req,
      sql`SELECT ${webhook_events.id} FROM ${webhook_events}
          WHERE ${removable(cutoff, now)}
          ORDER BY ${webhook_events.createdAt}, ${webhook_events.id}
          LIMIT ${RETENTION_BATCH}
          FOR UPDATE SKIP LOCKED`,
    )
    if (locked.length === 0) return { locked: 0, events: 0, deliveries: 0 }
    const ids = locked.map((row) => Number(row.id))
    const [counted] = await execute<{ events: number; deliveries: number }>(
      req,
      sql`WITH doomed_events AS (
            SELECT ${webhook_events.id} AS id FROM ${webhook_events}
            WHERE ${webhook_events.id} = ANY(${sql.param(ids)}::int[]) AND ${removable(cutoff, now)}
          ),
          doomed_deliveries AS (
            SELECT ${webhook_deliveries.id} AS id FROM ${webhook_deliveries}
            WHERE ${webhook_deliveries.event} IN (SELECT id FROM doomed_events)
          ),
          -- Run to completion though nothing reads them, as every data-modifying WITH.
          gone_locks AS (
            DELETE FROM ${payload_locked_documents}
            WHERE ${payload_locked_documents.id} IN (
              SELECT ${payload_locked_documents_rels.parent} FROM ${payload_locked_documents_rels}
              WHERE ${payload_locked_documents_rels.webhook_eventsID} IN (SELECT id FROM doomed_events)
                 OR ${payload_locked_documents_rels.webhook_deliveriesID} IN (SELECT id FROM doomed_deliveries))
          ),
          gone_preferences AS (
            DELETE FROM ${payload_preferences}
            WHERE ${payload_preferences.key} IN (
              SELECT 'collection-webhook_events-' || id FROM doomed_events
              UNION ALL SELECT 'collection-webhook_deliveries-' || id FROM doomed_deliveries)
          ),
          gone_deliveries AS (
            DELETE FROM ${webhook_deliveries} WHERE ${webhook_deliveries.id} IN (SELECT id FROM doomed_deliveries) RETURNING 1
          ),
          gone_events AS (
            DELETE FROM ${webhook_events} WHERE ${webhook_events.id} IN (SELECT id FROM doomed_events) RETURNING 1
          )
          SELECT (SELECT count(*) FROM gone_events)::int AS events, (SELECT count(*) FROM gone_deliveries)::int AS deliveries`,
    )
    return { locked: locked.length, events: Number(counted?.events ?? 0), deliveries: Number(counted?.deliveries ?? 0) }
  })

/**
 * Delete the webhook events older than `retentionDays` whose attempts are over, with their
 * deliveries, batch by batch until none is left. Safe to run twice, or on two instances at once:
 * each batch locks its own events, and what is already gone is not counted again.
 */
export const deleteOldWebhookEvents = async (
  payload: Payload,
  retentionDays: number,
  now = new Date(),
): Promise<RetentionResult> => {
  const cutoff = new Date(now.getTime() - retentionDays * DAY_MS).toISOString()
  const total: RetentionResult = { events: 0, deliveries: 0 }
  for (;;) {
    const batch = await deleteBatch(payload, cutoff, now.toISOString())
    total.events += batch.events
    total.deliveries += batch.deliveries
    // A short batch was the last; a batch whose events all turned out to be in use leaves them for the next run.
    if (batch.locked < RETENTION_BATCH || batch.events === 0) break
  }
  if (total.events > 0)
    payload.logger.info({
      msg: 'old webhook events deleted',
      events: total.events,
      deliveries: total.deliveries,
      retentionDays,
    })
  return total
}

/** Every hour (at minute 43, off the hour's other work), through the jobs worker: WEBHOOK_RETENTION_DAYS. */
export const deleteOldWebhookEventsTask = (retentionDays: number): TaskConfig<'deleteOldWebhookEvents'> => ({
  slug: 'deleteOldWebhookEvents',
  label: 'Delete old webhook events and their deliveries',
  inputSchema: [],
  outputSchema: [
    { name: 'events', type: 'number' },
    { name: 'deliveries', type: 'number' },
  ],
  schedule: [{ cron: '43 * * * *', queue: 'default' }],
  handler: async ({ req }) => ({ output: await deleteOldWebhookEvents(req.payload, retentionDays) }),
})

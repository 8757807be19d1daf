import type { Payload } from 'payload'

import type { SqlRow } from '../db/rows'
import { payload_jobs } from '../db/schema.generated'
import { bare, executeOn, sql } from '../db/transaction'

export type ReaperOptions = {
  /** A job still marked processing after this long was left behind by a process that died. */
  stuckAfterMs: number
  /** A job interrupted this many times fails for good instead of taking the worker down again. */
  maxInterruptions: number
}

export const DEFAULT_REAPER_OPTIONS: ReaperOptions = { stuckAfterMs: 10 * 60 * 1000, maxInterruptions: 5 }

type Reaped = Pick<SqlRow<typeof payload_jobs>, 'id' | 'task_slug' | 'has_error'> & { interruptions: number }

// PATCH: jobs-reaper
/**
 * Payload's queue marks a job `processing` while a runner works it and never looks at it again until
 * that runner clears the mark; a runner killed mid-job leaves it set for ever. Jobs marked longer
 * than `stuckAfterMs` are handed back to the queue and run again from their start (every task here
 * is safe to repeat); the `maxInterruptions`th time one is failed instead, so a job that crashes its
 * worker cannot loop.
 */
export const reapStuckJobs = async (
  payload: Payload,
  options: ReaperOptions = DEFAULT_REAPER_OPTIONS,
): Promise<Reaped[]> => {
  // The count lives in the job's `meta` (Payload's free-form field), apart from its own failed tries.
  const rows = await executeOn<Reaped>(
    payload,
    undefined,
    sql`WITH stuck AS (
       SELECT ${payload_jobs.id}, COALESCE((${payload_jobs.meta}->>'interruptions')::int, 0) + 1 AS interruptions
         FROM ${payload_jobs}
        WHERE ${payload_jobs.processing} = true AND ${payload_jobs.completedAt} IS NULL
          AND ${payload_jobs.updatedAt} < now() - (${options.stuckAfterMs}::double precision * interval '1 millisecond')
        FOR UPDATE SKIP LOCKED
     )
     UPDATE ${payload_jobs}
        SET ${bare(payload_jobs.processing)} = false,
            ${bare(payload_jobs.meta)} = COALESCE(${payload_jobs.meta}, '{}'::jsonb) || jsonb_build_object('interruptions', stuck.interruptions),
            ${bare(payload_jobs.hasError)} = stuck.interruptions >= ${options.maxInterruptions},
            ${bare(payload_jobs.error)} = CASE WHEN stuck.interruptions >= ${options.maxInterruptions}
                         THEN jsonb_build_object('message', 'interrupted ' || stuck.interruptions || ' times while processing')
                         ELSE ${payload_jobs.error} END,
            ${bare(payload_jobs.updatedAt)} = now()
       FROM stuck
      WHERE ${payload_jobs.id} = stuck.id
      RETURNING ${payload_jobs.id}, ${payload_jobs.taskSlug}, stuck.interruptions, ${payload_jobs.hasError}`,
  )
  for (const job of rows) {
    payload.logger.warn({
      msg: job.has_error ? 'interrupted job failed for good' : 'interrupted job handed back to the queue',
      jobId: job.id,
      task: job.task_slug,
      interruptions: job.interruptions,
    })
  }
  return rows
}

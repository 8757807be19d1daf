import type { Payload } from 'payload'

import { executeOn, sql } from '../db/transaction'

export type ReaperOptions = {
  /** A job still marked processing after this long was left behind by a process that died. */
  stuckAfterMs: number
  /** A job interrupted this many times fails for good instead of taking the worker down again. */
  maxInterruptions: number
}

export const DEFAULT_REAPER_OPTIONS: ReaperOptions = { stuckAfterMs: 10 * 60 * 1000, maxInterruptions: 5 }

type Reaped = { id: number; task_slug: string | null; interruptions: number; has_error: boolean }

/**
 * Payload's queue marks a job `processing` while a runner works it and never looks at it again until
 * that runner clears the mark; a runner killed mid-job leaves it set for ever. Jobs marked longer
 * than `stuckAfterMs` are handed back to the queue and run again from their start (every task here
 * is safe to repeat); the `maxInterruptions`th time one is failed instead, so a job that crashes its
 * worker cannot loop.
 */
export const reapStuckJobs = async (payload: Payload, options: ReaperOptions = DEFAULT_REAPER_OPTIONS): Promise<Reaped[]> => {
  // The count lives in the job's `meta` (Payload's free-form field), apart from its own failed tries.
  const rows = await executeOn<Reaped>(
    payload,
    undefined,
    sql`WITH stuck AS (
       SELECT id, COALESCE((meta->>'interruptions')::int, 0) + 1 AS interruptions
         FROM payload_jobs
        WHERE processing = true AND completed_at IS NULL AND updated_at < now() - (${options.stuckAfterMs}::double precision * interval '1 millisecond')
        FOR UPDATE SKIP LOCKED
     )
     UPDATE payload_jobs AS job
        SET processing = false,
            meta = COALESCE(job.meta, '{}'::jsonb) || jsonb_build_object('interruptions', stuck.interruptions),
            has_error = stuck.interruptions >= ${options.maxInterruptions},
            error = CASE WHEN stuck.interruptions >= ${options.maxInterruptions}
                         THEN jsonb_build_object('message', 'interrupted ' || stuck.interruptions || ' times while processing')
                         ELSE job.error END,
            updated_at = now()
       FROM stuck
      WHERE job.id = stuck.id
      RETURNING job.id, job.task_slug, stuck.interruptions, job.has_error`,
  )
  for (const job of rows) {
    payload.logger.warn({ msg: job.has_error ? 'interrupted job failed for good' : 'interrupted job handed back to the queue', jobId: job.id, task: job.task_slug, interruptions: job.interruptions })
  }
  return rows
}

import type { PayloadRequest, TypedJobs } from 'payload'

import { payload_jobs } from '../db/schema.generated'
import { later, statement } from '../db/statements'
import { bare, sql } from '../db/transaction'

const INSERT_JOB = statement<'input' | 'task' | 'queue' | 'waitUntil' | 'at'>(
  (p) =>
    sql`INSERT INTO ${payload_jobs}
          (${bare(payload_jobs.input, payload_jobs.taskSlug, payload_jobs.queue, payload_jobs.waitUntil, payload_jobs.updatedAt, payload_jobs.createdAt)})
        VALUES (${p.input}::jsonb, ${p.task}, COALESCE(${p.queue}::varchar, 'default'), ${p.waitUntil}::timestamptz, ${p.at}::timestamptz, ${p.at}::timestamptz)`,
)

type Task = keyof TypedJobs['tasks']

/**
 * Queue a task's job in `req`'s transaction, as `payload.jobs.queue` does without `jobs.runHooks` (this
 * service sets none): the same row, written by the adapter with no hook, but in one statement built once
 * instead of the ORM's insert and read-back, and sent with the transaction's last statement where the
 * transaction keeps later writes (src/db/statements.ts, `later`). Nothing reads the job back before it
 * commits; the runner claims it after.
 */
export const queueJob = async <T extends Task>(
  req: PayloadRequest,
  job: { task: T; input: TypedJobs['tasks'][T]['input']; queue?: string; waitUntil?: Date },
): Promise<void> => {
  await later(req, INSERT_JOB, {
    input: JSON.stringify(job.input),
    task: job.task,
    queue: job.queue ?? null,
    waitUntil: job.waitUntil?.toISOString() ?? null,
    at: new Date().toISOString(),
  })
}

import type { Payload, UpdateJobsArgs } from 'payload'

import type { SqlRow } from '../db/rows'
import { payload_jobs } from '../db/schema.generated'
import { bare, executeOn, sql } from '../db/transaction'

type JobIdRow = Pick<SqlRow<typeof payload_jobs>, 'id'>

/** Payload's runner claiming jobs: `processing: true` and nothing else (updatedAt is stamped by its helper). */
const isClaim = (args: UpdateJobsArgs): boolean =>
  args.data.processing === true && Object.keys(args.data).every((key) => key === 'processing' || key === 'updatedAt')

// PATCH: jobs-claim
/**
 * Makes claiming a job atomic, so a job runs on one runner however many instances work the queue.
 *
 * Payload 3.90's runner (payload/dist/queues/operations/runJobs) claims by calling the adapter's
 * `updateJobs` with `processing: true`, and @payloadcms/drizzle's `updateJobs` first SELECTs the
 * runnable jobs, then UPDATEs each by id alone. Every instance's cron fires on the same second, so two
 * runners read the same rows before either commits, and both claim (and run) them: seen here as
 * account emails sent twice by two servers. Here the claim is one conditional UPDATE, which PostgreSQL
 * lets only one runner win: `WHERE processing = false` (and still runnable) is re-checked on the row
 * after a concurrent claim commits. Payload's own update then runs only on the jobs this runner won,
 * and returns them in its own shape.
 *
 * Only the adapter path is covered: with `jobs.runHooks` or a `jobs.depth`, Payload claims through
 * `payload.update` instead (this service sets neither).
 */
export const claimJobsAtomically = (payload: Payload): void => {
  const db = payload.db
  const updateJobs = db.updateJobs.bind(db)
  db.updateJobs = async (args) => {
    if (!isClaim(args)) return updateJobs(args)
    if (args.id !== undefined) {
      // One job by id (runByID): Payload runs it whatever its state but must not run it twice at once.
      // On the pool, not the runner's transaction: the claim must hold before the job starts.
      const rows = await executeOn<JobIdRow>(
        payload,
        undefined,
        sql`UPDATE ${payload_jobs} SET ${bare(payload_jobs.processing)} = true, ${bare(payload_jobs.updatedAt)} = now()
            WHERE ${payload_jobs.id} = ${args.id} AND ${payload_jobs.processing} = false RETURNING ${payload_jobs.id}`,
      )
      return rows.length > 0 ? updateJobs(args) : []
    }
    const candidates = await db.find({
      collection: 'payload-jobs',
      where: args.where,
      limit: args.limit,
      sort: args.sort,
      pagination: false,
      req: args.req,
    })
    const ids = candidates.docs.map((job) => job.id)
    if (ids.length === 0) return []
    // The runnable conditions of Payload's query again, as another runner may have run a job meanwhile.
    const rows = await executeOn<JobIdRow>(
      payload,
      undefined,
      sql`UPDATE ${payload_jobs} SET ${bare(payload_jobs.processing)} = true, ${bare(payload_jobs.updatedAt)} = now()
          WHERE ${payload_jobs.id} IN ${ids} AND ${payload_jobs.processing} = false AND ${payload_jobs.completedAt} IS NULL
            AND ${payload_jobs.hasError} IS NOT TRUE AND (${payload_jobs.waitUntil} IS NULL OR ${payload_jobs.waitUntil} < now())
          RETURNING ${payload_jobs.id}`,
    )
    if (rows.length === 0) return []
    return updateJobs({
      data: args.data,
      req: args.req,
      returning: args.returning,
      sort: args.sort,
      limit: rows.length,
      where: { id: { in: rows.map((row) => row.id) } },
    })
  }
}

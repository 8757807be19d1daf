import type { Job, Payload, PayloadRequest, UpdateJobsArgs } from 'payload'

import { alias } from '@payloadcms/db-postgres/drizzle/pg-core'

import { iso, num, type SqlRow } from '../db/rows'
import { payload_jobs, payload_jobs_log } from '../db/schema.generated'
import { runOn, statement } from '../db/statements'
import { bare, columnList, type SQL, sql } from '../db/transaction'

/** Payload's runner claiming jobs: `processing: true` and nothing else (updatedAt is stamped by its helper). */
const isClaim = (args: UpdateJobsArgs): boolean =>
  args.data.processing === true && Object.keys(args.data).every((key) => key === 'processing' || key === 'updatedAt')

// A job as Payload's adapter returns it

const JOB_COLUMNS = columnList(
  payload_jobs.id,
  payload_jobs.input,
  payload_jobs.completedAt,
  payload_jobs.totalTried,
  payload_jobs.hasError,
  payload_jobs.error,
  payload_jobs.taskSlug,
  payload_jobs.queue,
  payload_jobs.waitUntil,
  payload_jobs.processing,
  payload_jobs.meta,
  payload_jobs.updatedAt,
  payload_jobs.createdAt,
)

type LogEntry = {
  id: string
  executedAt: string
  completedAt: string
  taskSlug: string
  taskID: string
  input: unknown
  output: unknown
  state: string
  error: unknown
}

type JobRow = SqlRow<typeof payload_jobs> & { log: LogEntry[] | null }

const logged = alias(payload_jobs_log, 'logged')
/** The entries this statement pushed: its WITH `pushed` (RETURNING every column of the log's table). */
const pushed = alias(payload_jobs_log, 'pushed')

/** One row of the log's table as a log entry. */
const logEntry = (entry: typeof logged | typeof pushed) =>
  sql`json_build_object('id', ${entry.id}, 'executedAt', ${entry.executedAt}, 'completedAt', ${entry.completedAt},
    'taskSlug', ${entry.taskSlug}, 'taskID', ${entry.taskID}, 'input', ${entry.input}, 'output', ${entry.output},
    'state', ${entry.state}, 'error', ${entry.error})`

/**
 * The log of the job `jobId` as a JSON array in Payload's order (`_order`), and with `withPushed` the
 * entries this statement's WITH `pushed` wrote (its own reads do not see them) after them.
 */
const logOf = (jobId: SQL, withPushed = false) =>
  sql`(SELECT COALESCE(json_agg(entry ORDER BY late, entry_order), '[]'::json) FROM (
        SELECT ${logEntry(logged)} AS entry, 0 AS late, ${logged._order} AS entry_order
          FROM ${payload_jobs_log} ${logged} WHERE ${logged._parentID} = ${jobId}
        ${withPushed ? sql`UNION ALL SELECT ${logEntry(pushed)}, 1, ${pushed._order} FROM ${sql.raw('pushed')}` : sql``}) AS entries) AS log`

/** A row of `JOB_COLUMNS` and its `log` as the adapter's `updateJobs` returns the job (tests/int/jobs-claim.test.ts holds them equal). */
const jobOf = (row: JobRow) => ({
  id: Number(row.id),
  input: row.input,
  completedAt: iso(row.completed_at),
  totalTried: num(row.total_tried),
  hasError: row.has_error,
  error: row.error,
  log: (row.log ?? []).map((entry) => ({
    id: entry.id,
    executedAt: iso(entry.executedAt)!,
    completedAt: iso(entry.completedAt)!,
    taskSlug: entry.taskSlug,
    taskID: entry.taskID,
    input: entry.input,
    output: entry.output,
    state: entry.state,
    error: entry.error,
  })),
  taskSlug: row.task_slug,
  queue: row.queue,
  waitUntil: iso(row.wait_until),
  processing: row.processing,
  meta: row.meta,
  updatedAt: iso(row.updated_at)!,
  createdAt: iso(row.created_at)!,
})

/** Jobs as the adapter's `updateJobs` answers them (Payload's helper adds `taskStatus` after). */
const jobsOf = (rows: JobRow[]) => rows.map(jobOf) as unknown as Job[]

/** The runnable conditions of Payload's claim, checked again in the claiming UPDATE. */
const runnable = sql`${payload_jobs.processing} = false AND ${payload_jobs.completedAt} IS NULL
  AND ${payload_jobs.hasError} IS NOT TRUE AND (${payload_jobs.waitUntil} IS NULL OR ${payload_jobs.waitUntil} < now())`

const CLAIM = statement<'ids', JobRow>(
  (p) =>
    sql`WITH claimed AS (
          UPDATE ${payload_jobs} SET ${bare(payload_jobs.processing)} = true, ${bare(payload_jobs.updatedAt)} = now()
          WHERE ${payload_jobs.id} = ANY(${p.ids}::integer[]) AND ${runnable}
          RETURNING ${JOB_COLUMNS})
        SELECT claimed.*, ${logOf(sql`claimed.id`)} FROM claimed`,
)

/** runByID's claim: the job whatever its state, but not while another runner works it. */
const CLAIM_BY_ID = statement<'id', JobRow>(
  (p) =>
    sql`WITH claimed AS (
          UPDATE ${payload_jobs} SET ${bare(payload_jobs.processing)} = true, ${bare(payload_jobs.updatedAt)} = now()
          WHERE ${payload_jobs.id} = ${p.id} AND ${payload_jobs.processing} = false
          RETURNING ${JOB_COLUMNS})
        SELECT claimed.*, ${logOf(sql`claimed.id`)} FROM claimed`,
)

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
 * after a concurrent claim commits. It returns the jobs this runner won in the adapter's own shape, in
 * the same statement (the adapter's own update then read back each job, two statements per job).
 *
 * Only the adapter path is covered: with `jobs.runHooks` or a `jobs.depth`, Payload claims through
 * `payload.update` instead (this service sets neither).
 */
export const claimJobsAtomically = (payload: Payload): void => {
  const db = payload.db
  const updateJobs = db.updateJobs.bind(db)
  db.updateJobs = async (args) => {
    if (!isClaim(args)) return writeRunnersUpdate(payload, args) ?? updateJobs(args)
    if (args.id !== undefined) {
      // One job by id (runByID): Payload runs it whatever its state but must not run it twice at once.
      // On the pool, not the runner's transaction: the claim must hold before the job starts.
      return jobsOf(await runOn(payload, undefined, CLAIM_BY_ID, { id: args.id }))
    }
    const candidates = await db.find({
      collection: 'payload-jobs',
      where: args.where,
      limit: args.limit,
      sort: args.sort,
      pagination: false,
      req: args.req,
    })
    const ids = candidates.docs.map((job) => Number(job.id))
    if (ids.length === 0) return []
    // The runnable conditions of Payload's query again, as another runner may have run a job meanwhile.
    const rows = await runOn(payload, undefined, CLAIM, { ids })
    const claimed = new Map(jobsOf(rows).map((job) => [Number(job.id), job]))
    return ids.flatMap((id) => claimed.get(id) ?? [])
  }
}

// The runner's writes after a task succeeded

const PUSH_LOG = statement<
  'jobId' | 'id' | 'executedAt' | 'completedAt' | 'taskSlug' | 'taskID' | 'input' | 'output' | 'state',
  JobRow
>(
  (p) =>
    sql`WITH pushed AS (
          INSERT INTO ${payload_jobs_log} (${bare(payload_jobs_log._order, payload_jobs_log._parentID, payload_jobs_log.id)},
            ${bare(payload_jobs_log.executedAt, payload_jobs_log.completedAt, payload_jobs_log.taskSlug, payload_jobs_log.taskID)},
            ${bare(payload_jobs_log.input, payload_jobs_log.output, payload_jobs_log.state)})
          VALUES (1, ${p.jobId}, ${p.id}, ${p.executedAt}::timestamptz, ${p.completedAt}::timestamptz, ${p.taskSlug}, ${p.taskID},
            ${p.input}::jsonb, ${p.output}::jsonb, ${p.state})
          RETURNING *)
        SELECT ${JOB_COLUMNS}, ${logOf(sql`${payload_jobs.id}`, true)} FROM ${payload_jobs} WHERE ${payload_jobs.id} = ${p.jobId}`,
)

const COMPLETE = statement<'id' | 'completedAt' | 'totalTried' | 'updatedAt', JobRow>(
  (p) =>
    sql`WITH completed AS (
          UPDATE ${payload_jobs} SET ${bare(payload_jobs.completedAt)} = ${p.completedAt}::timestamptz, ${bare(payload_jobs.processing)} = false,
            ${bare(payload_jobs.totalTried)} = ${p.totalTried}::numeric, ${bare(payload_jobs.updatedAt)} = ${p.updatedAt}::timestamptz
          WHERE ${payload_jobs.id} = ${p.id}
          RETURNING ${JOB_COLUMNS})
        SELECT completed.*, ${logOf(sql`completed.id`)} FROM completed`,
)

type PushedEntry = Omit<LogEntry, 'error'> & { parent?: unknown; error?: unknown }

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * The two writes of Payload's runner (payload/dist/queues/operations/runJobs/runJob) after a task
 * succeeded, each one statement that writes and reads the job back, on the transaction Payload's
 * `updateJob` opened: the task's log entry (`log: {$push}`, `updatedAt: null`), then the job completed
 * (`completedAt`, `processing: false`, `totalTried`, `updatedAt`). The adapter's own `updateJobs` builds
 * each through the ORM and reads the job back in a second statement. Anything else (a failure with its
 * retry, a cancellation, several jobs) is the adapter's: null.
 */
const writeRunnersUpdate = (payload: Payload, args: UpdateJobsArgs) => {
  const { id, data, returning } = args
  if (id === undefined || returning === false) return null
  const req = args.req as PayloadRequest | undefined
  const keys = Object.keys(data).sort().join(',')
  if (keys === 'log,updatedAt' && data.updatedAt === null && isPlainObject(data.log) && isPlainObject(data.log.$push)) {
    const entry = data.log.$push as PushedEntry
    if (entry.state !== 'succeeded' || entry.error !== undefined || entry.parent !== undefined) return null
    return runOn(payload, req, PUSH_LOG, {
      jobId: id,
      id: entry.id,
      executedAt: entry.executedAt,
      completedAt: entry.completedAt,
      taskSlug: entry.taskSlug,
      taskID: entry.taskID,
      input: entry.input === undefined ? null : JSON.stringify(entry.input),
      output: entry.output === undefined ? null : JSON.stringify(entry.output),
      state: entry.state,
    }).then(jobsOf)
  }
  if (
    keys === 'completedAt,processing,totalTried,updatedAt' &&
    data.processing === false &&
    typeof data.completedAt === 'string' &&
    typeof data.totalTried === 'number' &&
    typeof data.updatedAt === 'string'
  ) {
    return runOn(payload, req, COMPLETE, {
      id,
      completedAt: data.completedAt,
      totalTried: data.totalTried,
      updatedAt: data.updatedAt,
    }).then(jobsOf)
  }
  return null
}

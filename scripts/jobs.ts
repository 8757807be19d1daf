/**
 * `npm run jobs`: a process that only works the jobs queue (emails, repository withdrawals, the
 * scheduled upkeep), for deployments whose web instances run with JOBS_WORKER=false
 * (docs/DEPLOYMENT.md). It takes the server's environment. It waits until the database has every
 * migration this code knows (the servers apply them at start-up; so does `npm run migrate`), then works
 * the queue every 2 seconds. SIGTERM or SIGINT: no new turn, the jobs under way finish (at most 20 s),
 * exit 0. Any number of workers and servers may work one queue: a job is claimed by one of them
 * (src/jobs/claim.ts).
 */
import type { Payload } from 'payload'

import { resolvePayloadSecret } from '../src/config/env'
import type { SqlRow } from '../src/db/rows'
import { prepareProcess } from '../src/process/prepare'

// As server.ts: the .env files, the logger (JSON lines in production), the checks of production.
const { env, logger: jobsLog, log, fail } = await prepareProcess('jobs')
// Development without DATABASE_URL: the config points at the embedded database `npm run dev` runs.
process.env.PAYLOAD_SECRET ??= resolvePayloadSecret(env)

let worker: Payload | null = null
let stopping = false

const stop = async (signal: string) => {
  if (stopping) return
  stopping = true
  log(`${signal} received: finishing the jobs under way`)
  try {
    const { stopJobsWorker } = await import('../src/jobs/lifecycle')
    if (worker) await stopJobsWorker(worker, { log })
  } catch (error) {
    jobsLog.error({ err: error }, 'stopping failed')
  }
  log('jobs worker stopped')
  process.exit(0)
}
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => void stop(signal))

/** The names of the committed migrations the database lacks; all of them while it has no migrations table. */
const missingMigrations = async (payload: Payload, names: string[]): Promise<string[]> => {
  try {
    const { executeOn, sql } = await import('../src/db/transaction')
    const { payload_migrations } = await import('../src/db/schema.generated')
    const rows = await executeOn<Pick<SqlRow<typeof payload_migrations>, 'name'>>(
      payload,
      undefined,
      sql`SELECT ${payload_migrations.name} FROM ${payload_migrations}`,
    )
    const applied = new Set(rows.map((row) => row.name))
    return names.filter((name) => !applied.has(name))
  } catch (error) {
    if ((error as { code?: string }).code === '42P01') return names
    throw error
  }
}

const main = async () => {
  // PATCH: esm-tla-deadlock
  // One at a time: concurrent dynamic imports can deadlock Node's ESM loader (see server.ts).
  const { default: config } = await import('../payload.config')
  const { getPayload } = await import('payload')
  const { markJobsWorker, JOBS_TURN_SECONDS } = await import('../src/jobs/worker')
  const { migrations } = await import('../migrations')
  log('connecting to the database')
  worker = await getPayload({ config, key: 'jobs' })
  const names = migrations.map((migration) => migration.name)
  let waitingSince = 0
  for (
    let missing = await missingMigrations(worker, names);
    missing.length > 0;
    missing = await missingMigrations(worker, names)
  ) {
    if (stopping) return
    // Jobs of this code may need its schema: wait for a server (or npm run migrate) to apply it.
    if (Date.now() - waitingSince > 60_000) {
      log(
        `waiting for ${missing.length} migration(s) to be applied (the servers apply them at start-up, or npm run migrate)`,
      )
      waitingSince = Date.now()
    }
    await new Promise((resolve) => setTimeout(resolve, 2_000))
  }
  if (stopping) return
  markJobsWorker(worker)
  // The cached instance gets its cron now: the queue is worked from here on.
  await getPayload({ config, key: 'jobs', cron: true })
  log(`working the queue every ${JOBS_TURN_SECONDS} s`)
}

main().catch((error: unknown) => fail('start-up failed', error))

import pg from 'pg'

import { logger } from '../log'

/** The pools' lines (name `db`); exported so a test can watch them. */
export const poolLog = logger.child({ name: 'db' })

export type PoolWarning = { msg: string; pool: string; code?: string; error: string }
export type PoolLogger = (warning: PoolWarning) => void

/** One line with the pool's name and the driver's code and message; never the connection string. */
const warnInLog: PoolLogger = ({ msg, ...fields }) => {
  poolLog.warn(fields, msg)
}

/** Errors this soon after a warning belong to the same outage, whatever connected in between. */
const SAME_OUTAGE_MS = 5_000

/**
 * When PostgreSQL restarts (or the network drops), every pooled connection dies. An idle client's
 * error is re-emitted by its pool, and a pool without an `error` listener throws it: an uncaught
 * exception. A checked-out client that is between queries emits `error` itself, with the same
 * result. Both are expected during an outage (queries fail, callers answer 500 or 503, the pool
 * connects afresh once the database is back), so this logs the first one at warn and stays quiet
 * until the pool has connected again: one line per outage, whatever the number of clients. A
 * connection made just as the database went down is no sign that it is back, so a connection ends
 * the outage no sooner than SAME_OUTAGE_MS after the warning.
 */
export const guardPool = <P extends pg.Pool>(pool: P, name: string, warn: PoolLogger = warnInLog): P => {
  let quiet = false
  let warnedAt = 0
  const onError = (error: Error & { code?: string }) => {
    if (quiet) return
    quiet = true
    warnedAt = Date.now()
    warn({
      msg: 'database connection lost; queries fail until it is back',
      pool: name,
      code: error.code,
      error: error.message,
    })
  }
  pool.on('error', onError)
  pool.on('connect', (client) => {
    client.on('error', onError)
    if (!quiet) return
    const wait = warnedAt + SAME_OUTAGE_MS - Date.now()
    if (wait <= 0) quiet = false
    else setTimeout(() => (quiet = false), wait).unref()
  })
  return pool
}

// PATCH: module-copies
/** Numbers Payload's pools across the process: Next bundles its own copy of this module. */
const POOL_COUNTER = Symbol.for('starter-kit.payload-pools')

const nextPoolName = (): string => {
  const holder = globalThis as unknown as Record<symbol, number | undefined>
  holder[POOL_COUNTER] = (holder[POOL_COUNTER] ?? 0) + 1
  return `payload-${holder[POOL_COUNTER]}`
}

// PATCH: pool-errors
/**
 * Every pool made through it guards itself: what Payload's adapter gets as its `pg` option, so each
 * Payload instance's pool (start-up, jobs worker, Next's) is covered from its first connection.
 */
class GuardedPool extends pg.Pool {
  constructor(config?: pg.PoolConfig) {
    super(config)
    guardPool(this, nextPoolName())
  }
}

/** The `pg` module with a guarded Pool (the adapter uses only `pg.Pool`). */
export const guardedPg: typeof pg = { ...pg, Pool: GuardedPool }

import pg from 'pg'
import type { PayloadRequest } from 'payload'

import { execute, sql } from '../../src/db/transaction'

/**
 * Concurrency tests prove the interleaving they claim instead of sleeping and hoping: they wait for an
 * observable state (a backend of this file's database blocked on a lock, a row, a message), and fail
 * with what was not reached when a deadline passes, rather than passing without the race they describe.
 */

const POLL_MS = 10
const DEFAULT_TIMEOUT_MS = 10_000

/** A message that says which interleaving a test could not reach. */
class InterleavingNotReached extends Error {
  constructor(message: string, timeoutMs: number, detail?: string) {
    super(`${message} (waited ${timeoutMs} ms${detail ? `; ${detail}` : ''})`)
    this.name = 'InterleavingNotReached'
  }
}

export type WaitOptions = {
  /** What the failure says, e.g. "the webhook never waited on the email lock: the interleaving was not proven". */
  message: string
  timeoutMs?: number
  /** What the state was when the deadline passed, for the failure message. */
  detail?: () => string | Promise<string>
}

/** Poll `condition` until it holds; past the deadline, fail with `message`. */
export const waitUntil = async (
  condition: () => boolean | Promise<boolean>,
  { message, timeoutMs = DEFAULT_TIMEOUT_MS, detail }: WaitOptions,
): Promise<void> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (await condition()) return
    if (Date.now() >= deadline)
      throw new InterleavingNotReached(message, timeoutMs, detail ? await detail() : undefined)
    await new Promise((resolve) => setTimeout(resolve, POLL_MS))
  }
}

/** The PostgreSQL backend (pid) serving the transaction `req` carries. */
export const backendPid = async (req: PayloadRequest): Promise<number> => {
  const [row] = await execute<{ pid: number }>(req, sql`SELECT pg_backend_pid() AS pid`)
  return Number(row!.pid)
}

/** A backend of this file's database waiting for a lock, as pg_stat_activity and pg_locks show it. */
export type LockWaiter = {
  pid: number
  /** The statement that waits. */
  query: string
  /** What kind of lock it waits for: advisory, transactionid, tuple, relation, ... */
  waitEvent: string | null
  /** The backends holding what it waits for (pg_blocking_pids). */
  blockedBy: number[]
  /** Whether it waits for the transaction-level advisory lock the WaiterFilter's advisoryKey names. */
  onAdvisoryKey: boolean
}

export type WaiterFilter = {
  /** Only this backend. */
  pid?: number
  /** Only backends blocked by this one (it holds what they wait for). */
  blockedBy?: number
  /** Only backends waiting for `pg_advisory_xact_lock(hashtext(advisoryKey))` (src/db/transaction.ts lockKey). */
  advisoryKey?: string
  /** Only backends whose waiting statement matches. */
  query?: RegExp
}

const connect = async (): Promise<pg.Client> => {
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL })
  // The file's database is dropped WITH FORCE when it is done: a client still open must not crash the run.
  client.on('error', () => undefined)
  await client.connect()
  return client
}

const WAITERS = `SELECT a.pid, a.query, a.wait_event, pg_blocking_pids(a.pid) AS blocked_by,
         $1::text IS NOT NULL AND EXISTS (
           SELECT 1 FROM pg_locks l
           WHERE l.pid = a.pid AND NOT l.granted AND l.locktype = 'advisory' AND l.objsubid = 1
             AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
             AND ((l.classid::bigint << 32) | l.objid::bigint) = hashtext($1::text)::bigint
         ) AS on_key
    FROM pg_stat_activity a
   WHERE a.datname = current_database() AND a.wait_event_type = 'Lock' AND a.pid <> pg_backend_pid()`

const waitersOn = async (client: pg.Client, filter: WaiterFilter): Promise<LockWaiter[]> => {
  const { rows } = await client.query<{
    pid: number
    query: string
    wait_event: string | null
    blocked_by: number[]
    on_key: boolean
  }>(WAITERS, [filter.advisoryKey ?? null])
  return rows
    .map((row) => ({
      pid: row.pid,
      query: row.query,
      waitEvent: row.wait_event,
      blockedBy: row.blocked_by,
      onAdvisoryKey: row.on_key,
    }))
    .filter((waiter) => filter.pid === undefined || waiter.pid === filter.pid)
    .filter((waiter) => filter.blockedBy === undefined || waiter.blockedBy.includes(filter.blockedBy))
    .filter((waiter) => filter.advisoryKey === undefined || waiter.onAdvisoryKey)
    .filter((waiter) => filter.query === undefined || filter.query.test(waiter.query))
}

/**
 * Every backend of this test file's database (`current_database()`: each file has its own) that is
 * waiting for a lock right now, matching `filter`. Read on a connection of its own, outside Payload's pool.
 */
export const lockWaiters = async (filter: WaiterFilter = {}): Promise<LockWaiter[]> => {
  const client = await connect()
  try {
    return await waitersOn(client, filter)
  } finally {
    await client.end().catch(() => undefined)
  }
}

const describeWaiters = (waiters: LockWaiter[]) =>
  waiters.length === 0
    ? 'no backend of this database was waiting for a lock'
    : `waiting then: ${waiters.map((waiter) => `pid ${waiter.pid} on ${waiter.waitEvent} behind [${waiter.blockedBy.join(', ')}]: ${waiter.query.replace(/\s+/g, ' ').slice(0, 120)}`).join('; ')}`

/**
 * Wait until at least `count` backends match `filter` while waiting for a lock, at the same moment: the
 * second transaction is really blocked behind the first. Past the deadline, fail with `message` (and
 * what was waiting then).
 */
export const waitForLockWaiters = async ({
  message,
  timeoutMs,
  count = 1,
  ...filter
}: WaiterFilter & { message: string; timeoutMs?: number; count?: number }): Promise<LockWaiter[]> => {
  const client = await connect()
  try {
    let found: LockWaiter[] = []
    await waitUntil(
      async () => {
        found = await waitersOn(client, filter)
        return found.length >= count
      },
      { message, timeoutMs, detail: async () => describeWaiters(await waitersOn(client, {})) },
    )
    return found
  } finally {
    await client.end().catch(() => undefined)
  }
}

import { type PostgresAdapter, sql } from '@payloadcms/db-postgres'
import type { Column } from '@payloadcms/db-postgres/drizzle'
import crypto from 'node:crypto'

import { createLocalReq, type Payload, type PayloadRequest } from 'payload'

import { dropLaterWrites, keepLaterWrites, run, runWithLaterWrites, statement } from './statements'

export { sql }

export type SQL = ReturnType<typeof sql>

/**
 * Columns of the generated tables (./schema.generated.ts) by their bare names, where SQL takes no
 * table before a column: an UPDATE's SET list, an INSERT's column list, ON CONFLICT's target.
 * Anywhere else a column goes in as it is: `${licenses.status}` renders "licenses"."status".
 */
export const bare = (...columns: Column[]): SQL =>
  sql.join(
    columns.map((column) => sql.identifier(column.name)),
    sql`, `,
  )

/** Columns as a SELECT or RETURNING list: "licenses"."id", "licenses"."key", ... (each row keyed by the column's name). */
export const columnList = (...columns: Column[]): SQL => sql.join(columns, sql`, `)

// PATCH: db-sessions
/**
 * Run raw SQL on the transaction `req` carries (or on the pool when it carries none), as the adapter's
 * own operations do with `req.transactionID`: through the exported PostgresAdapter type's `sessions`
 * (open transactions by id) and `drizzle` (the pool), which Payload's core types leave untyped.
 */
export const execute = async <Row = Record<string, unknown>>(req: PayloadRequest, query: SQL): Promise<Row[]> => {
  const db = req.payload.db as unknown as PostgresAdapter
  const id = await req.transactionID
  const session = id === undefined || id === null ? undefined : db.sessions[String(id)]
  const result = await (session?.db ?? db.drizzle).execute(query)
  return result.rows as Row[]
}

/** A timestamp column of a raw row (pg gives a Date) as Payload's documents hold it: ISO 8601, or null. */
export const isoTimestamp = (value: Date | string | null): string | null =>
  value === null ? null : new Date(value).toISOString()

/** Raw SQL on `req`'s transaction when given one, else on the pool. */
export const executeOn = <Row = Record<string, unknown>>(
  payload: Payload,
  req: PayloadRequest | undefined,
  query: SQL,
): Promise<Row[]> => execute<Row>(req ?? ({ payload } as PayloadRequest), query)

// PATCH: failed-commit
/**
 * One database transaction for a unit of work: every Local API call given this `req` and every
 * `execute(req, ...)` joins it; it commits when `work` resolves and rolls back when it throws.
 *
 * It resolves only once PostgreSQL has confirmed the COMMIT. Payload's own commitTransaction cannot
 * say that: the adapter's transaction promise swallows a failed COMMIT (a deferred constraint, a
 * connection lost mid-commit), so a caller would report work as done that was rolled back: a webhook
 * answering 200 for an event whose effects were lost. Here drizzle's transaction runs the work
 * itself, registered under an id in the adapter's sessions as Payload's beginTransaction registers
 * its own, so Payload's operations join it through `req.transactionID`; a COMMIT that fails rejects.
 * An operation that aborts the transaction (Payload's killTransaction, on its own error) dooms it: it
 * rolls back even if `work` goes on. With `laterWrites`, the writes `later` keeps (./statements.ts) go
 * out with the transaction's last statement, at the latest just before the COMMIT.
 */
export const inTransaction = async <T>(
  payload: Payload,
  work: (req: PayloadRequest) => Promise<T>,
  options: { laterWrites?: boolean } = {},
): Promise<T> => {
  const db = payload.db as unknown as PostgresAdapter
  const req = await createLocalReq({}, payload)
  await db.initializing
  let aborted = false
  const result = await db.drizzle.transaction(async (tx) => {
    const id = crypto.randomUUID()
    db.sessions[id] = {
      db: tx,
      // Payload's operations never commit a transaction they did not begin; drizzle commits this one.
      resolve: () => Promise.resolve(),
      reject: () => {
        aborted = true
        return Promise.resolve()
      },
    }
    req.transactionID = id
    if (options.laterWrites) keepLaterWrites(id)
    try {
      const value = await work(req)
      if (aborted) throw new Error('the transaction was aborted by an operation inside it')
      await runWithLaterWrites(req, null, {})
      return value
    } finally {
      dropLaterWrites(id)
      delete db.sessions[id]
      delete req.transactionID
    }
  })
  return result
}

const LOCK_KEY = statement<'key'>((p) => sql`SELECT pg_advisory_xact_lock(hashtext(${p.key}))`)
const LOCK_KEY_SHARED = statement<'key'>((p) => sql`SELECT pg_advisory_xact_lock_shared(hashtext(${p.key}))`)

/** Serialise work on one business object (a payment intent, a subscription) across transactions. */
export const lockKey = async (req: PayloadRequest, key: string): Promise<void> => {
  await run(req, LOCK_KEY, { key })
}

/** `lockKey`'s shared form: any number of holders at once, none while someone holds `lockKey` of the same key. */
export const lockKeyShared = async (req: PayloadRequest, key: string): Promise<void> => {
  await run(req, LOCK_KEY_SHARED, { key })
}

/**
 * The key an account's erasure holds (src/privacy/erasure.ts) while webhooks that give the account a
 * purchase hold it shared: an erasure waits for those in flight, and those after it see the account erased.
 */
export const accountLockKey = (userId: number) => `account:${userId}`

/** The constraint a foreign-key violation (SQLSTATE 23503) names, as pg or a wrapping driver reports it; null for anything else. */
export const foreignKeyViolation = (error: unknown): string | null => {
  for (
    let current: unknown = error;
    current && typeof current === 'object';
    current = (current as { cause?: unknown }).cause
  ) {
    const { code, constraint } = current as { code?: unknown; constraint?: unknown }
    if (code === '23503') return typeof constraint === 'string' ? constraint : ''
  }
  return null
}

import { type PostgresAdapter, sql } from '@payloadcms/db-postgres'
import {
  commitTransaction,
  createLocalReq,
  initTransaction,
  killTransaction,
  type Payload,
  type PayloadRequest,
} from 'payload'

export { sql }

type SQL = ReturnType<typeof sql>

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

/** Raw SQL on `req`'s transaction when given one, else on the pool. */
export const executeOn = <Row = Record<string, unknown>>(payload: Payload, req: PayloadRequest | undefined, query: SQL): Promise<Row[]> =>
  execute<Row>(req ?? ({ payload } as PayloadRequest), query)

/**
 * One database transaction for a unit of work: every Local API call given this `req` and every
 * `execute(req, ...)` joins it; it commits when `work` resolves and rolls back when it throws.
 */
export const inTransaction = async <T>(payload: Payload, work: (req: PayloadRequest) => Promise<T>): Promise<T> => {
  const req = await createLocalReq({}, payload)
  await initTransaction(req)
  try {
    const result = await work(req)
    await commitTransaction(req)
    return result
  } catch (error) {
    await killTransaction(req)
    throw error
  }
}

/** Serialise work on one business object (a payment intent, a subscription) across transactions. */
export const lockKey = async (req: PayloadRequest, key: string): Promise<void> => {
  await execute(req, sql`SELECT pg_advisory_xact_lock(hashtext(${key}))`)
}

/** The constraint a foreign-key violation (SQLSTATE 23503) names, as pg or a wrapping driver reports it; null for anything else. */
export const foreignKeyViolation = (error: unknown): string | null => {
  for (let current: unknown = error; current && typeof current === 'object'; current = (current as { cause?: unknown }).cause) {
    const { code, constraint } = current as { code?: unknown; constraint?: unknown }
    if (code === '23503') return typeof constraint === 'string' ? constraint : ''
  }
  return null
}

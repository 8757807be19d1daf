import crypto from 'node:crypto'

import { type PostgresAdapter, sql } from '@payloadcms/db-postgres'
import type { Payload, PayloadRequest } from 'payload'
import pg from 'pg'

type SQL = ReturnType<typeof sql>

/**
 * Statements built once (docs/DATABASE.md): the SQL is written as for `execute` (./transaction.ts), with
 * named parameters (`${p.email}`) where values go. The first run in a process renders it to text through
 * the adapter's dialect; every run after sends that text with the values, as a named prepared statement,
 * so PostgreSQL parses and plans it once per connection. Drizzle's `sql` renders a statement anew on each
 * `execute` (its `is` checks per fragment were a tenth of the webhook's CPU time, docs/PERFORMANCE.md),
 * and PostgreSQL parses it anew.
 */

/** The named parameters a statement's SQL takes: `${p.email}`. */
export type Params<P extends string> = { readonly [K in P]: SQL }

type Compiled = { name: string; text: string; slots: ({ param: string } | { value: unknown })[] }

/** A statement taking the parameters `P` and answering rows of `Row`. */
export type Statement<P extends string = never, Row = Record<string, unknown>> = {
  readonly id: number
  readonly build: (params: Params<P>) => SQL
  compiled?: Compiled
  /** Never set: carries the row type. */
  readonly row?: Row
}

let nextId = 0

/** A statement built once; `build` is called with the parameters, and only to render it. */
export const statement = <P extends string = never, Row = Record<string, unknown>>(
  build: (params: Params<P>) => SQL,
): Statement<P, Row> => ({ id: nextId++, build })

const PLACEHOLDER = sql.placeholder('_').constructor

/** Parameters named with `prefix` (a statement inside another: `w0.email`). */
const paramsNamed = <P extends string>(prefix: string): Params<P> =>
  new Proxy({} as Params<P>, { get: (_, name) => sql.placeholder(`${prefix}${String(name)}`) })

type Dialect = { sqlToQuery: (query: SQL) => { sql: string; params: unknown[] } }

const render = (payload: Payload, query: SQL): Compiled => {
  const dialect = (payload.db as unknown as { drizzle: { dialect: Dialect } }).drizzle.dialect
  const { sql: text, params } = dialect.sqlToQuery(query)
  return {
    // Unique per text (pg refuses one name for two texts on a connection).
    name: `kit_${crypto.createHash('sha1').update(text).digest('base64url').slice(0, 20)}`,
    text,
    slots: params.map((param) =>
      param instanceof PLACEHOLDER ? { param: (param as unknown as { name: string }).name } : { value: param },
    ),
  }
}

const compiledOf = <P extends string, Row>(payload: Payload, statement: Statement<P, Row>): Compiled =>
  (statement.compiled ??= render(payload, statement.build(paramsNamed(''))))

/** Timestamps, dates and intervals as text, as the adapter's own queries read them (drizzle's node-postgres session). */
const AS_TEXT = new Set([
  pg.types.builtins.TIMESTAMPTZ,
  pg.types.builtins.TIMESTAMP,
  pg.types.builtins.DATE,
  pg.types.builtins.INTERVAL,
  1231,
  1115,
  1185,
  1187,
  1182,
])
const asText = (value: string) => value
const builtinParser = pg.types.getTypeParser as (id: number, format?: string) => (value: string) => unknown
const TYPES = {
  getTypeParser: ((id: number, format?: string) =>
    AS_TEXT.has(id) ? asText : builtinParser(id, format)) as typeof pg.types.getTypeParser,
}

type Queryable = { query: (config: pg.QueryConfig) => Promise<pg.QueryResult> }

// PATCH: db-sessions
/** The connection of `req`'s transaction (as `execute` finds it), or the pool. */
const connectionOf = async (payload: Payload, req: PayloadRequest | undefined): Promise<Queryable> => {
  const db = payload.db as unknown as PostgresAdapter
  const id = req ? await req.transactionID : undefined
  const session = id === undefined || id === null ? undefined : db.sessions[String(id)]
  const client = (session?.db as unknown as { session?: { client?: Queryable } } | undefined)?.session?.client
  return client ?? db.pool
}

const send = async <Row>(
  payload: Payload,
  req: PayloadRequest | undefined,
  compiled: Compiled,
  values: Record<string, unknown>,
): Promise<Row[]> => {
  const connection = await connectionOf(payload, req)
  const result = await connection.query({
    name: compiled.name,
    text: compiled.text,
    values: compiled.slots.map((slot) => ('param' in slot ? (values[slot.param] ?? null) : slot.value)),
    types: TYPES,
  })
  return result.rows as Row[]
}

/** Run a statement on `req`'s transaction (the pool when it has none); a missing value is NULL. */
export const run = <P extends string, Row>(
  req: PayloadRequest,
  statement: Statement<P, Row>,
  values: { [K in P]: unknown },
): Promise<Row[]> => send<Row>(req.payload, req, compiledOf(req.payload, statement), values)

/** `run` on `req`'s transaction when given one, else on the pool. */
export const runOn = <P extends string, Row>(
  payload: Payload,
  req: PayloadRequest | undefined,
  statement: Statement<P, Row>,
  values: { [K in P]: unknown },
): Promise<Row[]> => send<Row>(payload, req, compiledOf(payload, statement), values)

// Writes left to the end of a transaction

type Later = { statement: Statement<string, unknown>; values: Record<string, unknown> }

/** The writes `later` kept for each open transaction of `inTransaction` (by its id). */
const kept = new Map<string, Later[]>()

/** `inTransaction` opens and closes the list of its transaction's later writes. */
export const keepLaterWrites = (transactionId: string): void => {
  kept.set(transactionId, [])
}
export const dropLaterWrites = (transactionId: string): void => {
  kept.delete(transactionId)
}

/**
 * A write nothing in its transaction reads back (an analytics event, a queued job): in a transaction of
 * `inTransaction` with `laterWrites`, sent with the transaction's last statement (`runWithLaterWrites`,
 * or just before the COMMIT), one round trip for all of them; anywhere else, at once. Either way it
 * commits or rolls back with the transaction, and a failure of it fails the transaction.
 */
export const later = async <P extends string, Row>(
  req: PayloadRequest,
  statement: Statement<P, Row>,
  values: { [K in P]: unknown },
): Promise<void> => {
  const id = await req.transactionID
  const writes = id === undefined || id === null ? undefined : kept.get(String(id))
  if (writes) writes.push({ statement, values })
  else await run(req, statement, values)
}

/** The statement of writes kept and a last statement, by their statements' ids: rendered once each. */
const combined = new Map<string, Compiled>()
const MAX_COMBINED = 500

/**
 * Run `last` on `req`'s transaction together with the writes `later` kept for it, in one statement
 * (`WITH w0 AS (<write>), ... <last>`: PostgreSQL runs every data-modifying WITH to completion); the
 * writes are no longer kept. Without `last`, the writes alone (nothing when there are none).
 */
export const runWithLaterWrites = async <P extends string, Row>(
  req: PayloadRequest,
  last: Statement<P, Row> | null,
  values: { [K in P]: unknown },
): Promise<Row[]> => {
  const id = await req.transactionID
  const writes = id === undefined || id === null ? [] : (kept.get(String(id))?.splice(0) ?? [])
  if (writes.length === 0) return last ? run(req, last, values) : []
  const key = [...writes.map((write) => write.statement.id), last?.id ?? '-'].join(',')
  let compiled = combined.get(key)
  if (!compiled) {
    const query = sql`WITH ${sql.join(
      writes.map(
        (write, index) => sql`${sql.raw(`w${index}`)} AS (${write.statement.build(paramsNamed(`w${index}.`))})`,
      ),
      sql`, `,
    )} ${last ? last.build(paramsNamed('last.')) : sql`SELECT 1`}`
    compiled = render(req.payload, query)
    if (combined.size < MAX_COMBINED) combined.set(key, compiled)
  }
  const all: Record<string, unknown> = {}
  writes.forEach((write, index) => {
    for (const [name, value] of Object.entries(write.values)) all[`w${index}.${name}`] = value
  })
  for (const [name, value] of Object.entries(values as Record<string, unknown>)) all[`last.${name}`] = value
  return send<Row>(req.payload, req, compiled, all)
}

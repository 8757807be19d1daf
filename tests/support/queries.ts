import { AsyncLocalStorage, AsyncResource } from 'node:async_hooks'

import type { Payload } from 'payload'
import type { PoolClient, QueryConfig } from 'pg'

type Query = (...args: unknown[]) => unknown

let recording: string[] | null = null
/** Clients checked out explicitly (a transaction, a held client) during the recording; pool.query's own are not counted. */
let checkouts = 0
const wrapped = new WeakSet<object>()
/** recordQueries's: the statements and checkouts made in one call's own async context, and nothing else's. */
type Own = { statements: string[]; checkouts: number }
const scope = new AsyncLocalStorage<Own>()

const textOf = (query: unknown): string =>
  typeof query === 'string'
    ? query
    : typeof query === 'object' && query !== null
      ? String((query as QueryConfig).text ?? '')
      : ''

/** Counts every statement sent through `target.query` while a recording runs; passes through otherwise. */
const wrapQuery = (target: { query: Query }) => {
  if (wrapped.has(target)) return
  wrapped.add(target)
  const original = target.query
  target.query = function (this: unknown, ...args: unknown[]) {
    const text = textOf(args[0])
    recording?.push(text)
    scope.getStore()?.statements.push(text)
    return original.apply(this, args)
  }
}

const poolOf = (payload: Payload) =>
  (payload.db as unknown as { pool: { query: Query; connect: (...args: unknown[]) => unknown } }).pool

/**
 * Starts recording the SQL statements (database round trips) made on the Payload instance's pool:
 * those sent through the pool itself and those on clients it checks out (transactions). One recording
 * at a time; `stop` ends it.
 */
export type Recorder = { statements: () => string[]; checkouts: () => number; stop: () => void }

const instrument = (payload: Payload) => {
  const pool = poolOf(payload)
  // Every statement runs on a checked-out client (pool.query checks one out too, through the callback
  // form of connect), so counting at the clients counts each round trip once.
  if (!wrapped.has(pool.connect)) {
    const connect = pool.connect
    const wrappedConnect = function (this: unknown, ...args: unknown[]) {
      const callback = args[args.length - 1]
      if (typeof callback === 'function') {
        // Bound to the caller's context: pg-pool calls a queued callback from the releasing client's.
        args[args.length - 1] = AsyncResource.bind(
          (error: unknown, client: PoolClient | undefined, ...rest: unknown[]) => {
            if (client) wrapQuery(client)
            return (callback as (...values: unknown[]) => unknown)(error, client, ...rest)
          },
        )
        return connect.apply(this, args)
      }
      if (recording) checkouts += 1
      const own = scope.getStore()
      if (own) own.checkouts += 1
      return (connect.apply(this, args) as Promise<PoolClient>).then((client) => {
        wrapQuery(client)
        return client
      })
    }
    wrapped.add(wrappedConnect)
    pool.connect = wrappedConnect
  }
}

export const startRecording = (payload: Payload): Recorder => {
  instrument(payload)
  if (recording) throw new Error('startRecording: one recording at a time')
  const texts: string[] = []
  recording = texts
  checkouts = 0
  return {
    statements: () => [...texts],
    checkouts: () => checkouts,
    stop: () => {
      if (recording === texts) recording = null
    },
  }
}

/**
 * The SQL statements made in `run`'s own async context only: the in-process request it sends
 * (`api()`) and everything that request awaits. Another test's work still finishing in the background
 * is not counted, so an exact count holds on a slow machine too. Not for a request that arrives over
 * HTTP (the stand-ins' webhook deliveries): the server handles it in the context of its socket, so
 * use recordDeliveries there.
 */
export const recordQueries = async (payload: Payload, run: () => Promise<unknown>): Promise<string[]> =>
  (await recordOwnRun(payload, run)).statements

/** recordQueries's statements, and the clients `run` checked out explicitly (a transaction, a held client). */
export const recordOwnRun = async (payload: Payload, run: () => Promise<unknown>): Promise<Own> => {
  instrument(payload)
  const own: Own = { statements: [], checkouts: 0 }
  await scope.run(own, run)
  return { statements: [...own.statements], checkouts: own.checkouts }
}

/** recordDeliveries's list while it runs: the endpoint server handles each request in its context. */
let deliveries: Own | null = null

/**
 * The endpoint server (tests/support/endpoint-server.ts) runs each request it receives through this: while
 * recordDeliveries runs, the request's statements (and everything it awaits) are recorded.
 */
export const inDeliveryContext = <T>(work: () => T): T => (deliveries ? scope.run(deliveries, work) : work())

/**
 * The SQL statements of the requests that arrive over HTTP at the endpoint server while `run` runs (the
 * stand-ins' webhook deliveries), counted in each request's own async context: the jobs queue's cron,
 * another test's work finishing in the background or the test's own reads are not counted, so an exact
 * count holds on a busy machine too.
 */
export const recordDeliveries = async (payload: Payload, run: () => Promise<unknown>): Promise<string[]> => {
  instrument(payload)
  if (deliveries) throw new Error('recordDeliveries: one recording at a time')
  const own: Own = { statements: [], checkouts: 0 }
  deliveries = own
  try {
    await run()
  } finally {
    deliveries = null
  }
  return [...own.statements]
}

/** The entitlements lookup's statement (src/licensing/entitlements.ts): one per user and request. */
export const isEntitlementsLookup = (statement: string) =>
  /FROM "plans"\s+LEFT JOIN \(SELECT "licenses"."id" AS license_id/.test(statement)

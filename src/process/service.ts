import type { Payload } from 'payload'

// PATCH: module-copies
/**
 * What Next's side of the server process hands to the express host (server.ts): the one Payload
 * instance of the process, which Next's routes use and which works the jobs queue, and Payload's
 * request handling for the paths the host serves itself. On globalThis, because Next bundles its own
 * copy of every module; published by src/instrumentation.ts when Next starts.
 */
export type Service = {
  payload: Payload
  /** Payload's REST request handling (auth, endpoints, its error shape), without Next's route layer. */
  handle: (request: Request) => Promise<Response>
  /** Whether this process works the jobs queue (JOBS_WORKER). */
  jobsWorker: boolean
}

const KEY = Symbol.for('starter-kit.service')

type Holder = Record<symbol, Service | undefined>

export const publishService = (service: Service): void => {
  ;(globalThis as unknown as Holder)[KEY] = service
}

export const publishedService = (): Service | null => (globalThis as unknown as Holder)[KEY] ?? null

const PREPARED = Symbol.for('starter-kit.database-prepared')

type PreparedHolder = Record<symbol, Promise<void> | undefined>

/**
 * server.ts prepares the database (migrations, plans, content) in a child process while Next starts
 * beside it: `prepared` settles when the child is done. Published here, for the same reason as the service.
 */
export const publishDatabasePreparation = (prepared: Promise<void>): void => {
  ;(globalThis as unknown as PreparedHolder)[PREPARED] = prepared
}

/** What src/instrumentation.ts waits for before it makes the Payload instance (at once when nothing prepares one). */
export const databasePrepared = (): Promise<void> =>
  (globalThis as unknown as PreparedHolder)[PREPARED] ?? Promise.resolve()

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

import type { Payload } from 'payload'

// PATCH: module-copies
// PATCH: jobs-worker-mark
/**
 * The one Payload instance per process that works the jobs queue. Next's own instances also start
 * queue crons (its admin layout asks for them); several runners in one process race for the same
 * jobs, so only the marked instance runs them. A registry on globalThis, because Next bundles its own
 * copy of this module.
 */
const REGISTRY = Symbol.for('starter-kit.jobs-worker')

/** The jobs worker's turn: every JOBS_TURN_SECONDS, at most JOBS_TURN_LIMIT jobs (payload.config.ts). */
export const JOBS_TURN_SECONDS = 2
export const JOBS_TURN_LIMIT = 20

type Registry = { workers: WeakSet<Payload> }

const registry = (): Registry => {
  const holder = globalThis as unknown as Record<symbol, Registry | undefined>
  holder[REGISTRY] ??= { workers: new WeakSet() }
  return holder[REGISTRY]
}

export const markJobsWorker = (payload: Payload): void => {
  registry().workers.add(payload)
}

export const isJobsWorker = (payload: Payload): boolean => registry().workers.has(payload)

import pg from 'pg'

import { guardPool, type PoolLogger } from './pool-errors'

export type ReadinessCheck = {
  /** Resolves when the database answers `SELECT 1`; rejects otherwise. */
  check: () => Promise<void>
  close: () => Promise<void>
}

/**
 * The readiness probe's own small pool, apart from Payload's: a busy application pool must not make
 * the probe wait, and the probe must not take the application's connections.
 */
export const createReadinessCheck = (connectionString: string, warn?: PoolLogger): ReadinessCheck => {
  const pool = guardPool(new pg.Pool({ connectionString, max: 2, connectionTimeoutMillis: 2_000 }), 'readiness', warn)
  return {
    check: async () => {
      await pool.query('SELECT 1')
    },
    close: () => pool.end(),
  }
}

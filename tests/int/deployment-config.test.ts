/**
 * The deployment settings of docs/DEPLOYMENT.md: DATABASE_POOL_MAX reaches Payload's pool, and
 * JOBS_WORKER is read strictly (a typo must not silently turn the server's jobs worker off or on).
 */
import { afterAll, describe, expect, it } from 'vitest'

import { readEnv } from '../../src/config/env'

// Before the config is imported: it reads the environment once.
process.env.DATABASE_POOL_MAX = '7'

describe('DATABASE_POOL_MAX', () => {
  it('defaults to 10 and takes a positive integer; anything else names the variable', () => {
    expect(readEnv({}).databasePoolMax).toBe(10)
    expect(readEnv({ DATABASE_POOL_MAX: '25' }).databasePoolMax).toBe(25)
    for (const value of ['0', '-1', '2.5', 'ten'])
      expect(() => readEnv({ DATABASE_POOL_MAX: value })).toThrow(/DATABASE_POOL_MAX must be a positive integer/)
  })

  let close: (() => Promise<void>) | null = null
  afterAll(async () => {
    await close?.()
  })

  it("is the size of each Payload instance's pool", async () => {
    const { default: config } = await import('../../payload.config')
    const { getPayload } = await import('payload')
    const { closePayload } = await import('../../src/db/bootstrap')
    const payload = await getPayload({ config, key: 'pool-size' })
    close = () => closePayload(payload)
    expect((payload.db.pool as unknown as { options: { max: number } }).options.max).toBe(7)
  })
})

describe('JOBS_WORKER', () => {
  it('defaults to true; true or false in any case; anything else refuses to start', () => {
    expect(readEnv({}).jobsWorker).toBe(true)
    expect(readEnv({ JOBS_WORKER: '' }).jobsWorker).toBe(true)
    expect(readEnv({ JOBS_WORKER: 'false' }).jobsWorker).toBe(false)
    expect(readEnv({ JOBS_WORKER: ' FALSE ' }).jobsWorker).toBe(false)
    expect(readEnv({ JOBS_WORKER: 'True' }).jobsWorker).toBe(true)
    for (const value of ['0', 'no', 'off', 'flase'])
      expect(() => readEnv({ JOBS_WORKER: value })).toThrow(/JOBS_WORKER must be true or false/)
  })
})

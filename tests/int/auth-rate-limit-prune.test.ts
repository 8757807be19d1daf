import crypto from 'node:crypto'

import { describe, expect, it } from 'vitest'

import { PRUNE_BATCH, pruneRateLimits } from '../../src/auth/rate-limit-prune'
import { api, usePayload } from '../support/payload'

/*
 * Every new client address, email or license key tried adds a rate_limits row, and
 * rate-limiter-flexible deletes a row only when its key is used again: a stream of random keys grew
 * the table for good. A scheduled job deletes the expired rows.
 */

const payload = usePayload()
const rows = async () => Number((await payload().db.pool.query('SELECT count(*) AS n FROM rate_limits')).rows[0].n)
const validate = (key: string, address: string) => api('POST', '/licenses/validate', { body: { key }, address })

describe('pruning the rate-limit table', () => {
  it('random keys add rows; the job deletes the expired ones and keeps the live ones, which still count', async () => {
    await payload().db.pool.query('DELETE FROM rate_limits')
    // Twenty random license keys from one address: one address row and twenty key rows.
    for (let index = 0; index < 20; index += 1)
      expect((await validate(`KIT-${crypto.randomBytes(8).toString('hex')}`, '198.51.100.7')).status).toBe(200)
    expect(await rows()).toBe(21)

    // Their windows pass (as if ten minutes went by), except the address's, which stays live.
    await payload().db.pool.query(`UPDATE rate_limits SET expire = $1 WHERE key NOT LIKE '%198.51.100.7%'`, [
      Date.now() - 1000,
    ])
    expect(await pruneRateLimits(payload())).toBe(20)
    expect(await rows()).toBe(1)

    // The live row still counts: the address's limit goes on from where it was.
    const [{ points }] = (
      await payload().db.pool.query(`SELECT points FROM rate_limits WHERE key LIKE '%198.51.100.7%'`)
    ).rows
    expect(points).toBe(20)
  })

  it('deletes a backlog larger than one batch in one run, and keeps rows without an expiry', async () => {
    await payload().db.pool.query('DELETE FROM rate_limits')
    const past = Date.now() - 60_000
    await payload().db.pool.query(
      `INSERT INTO rate_limits (key, points, expire) SELECT 'old:' || n, 1, $1 FROM generate_series(1, $2::int) AS n`,
      [past, PRUNE_BATCH + 7],
    )
    await payload().db.pool.query(
      `INSERT INTO rate_limits (key, points, expire) VALUES ('forever', 1, NULL), ('live', 1, $1)`,
      [Date.now() + 600_000],
    )
    expect(await pruneRateLimits(payload())).toBe(PRUNE_BATCH + 7)
    expect(
      (await payload().db.pool.query('SELECT key FROM rate_limits ORDER BY key')).rows.map((row) => row.key),
    ).toEqual(['forever', 'live'])
  })

  it('runs hourly as a job of the queue', async () => {
    const task = payload().config.jobs.tasks?.find((candidate) => candidate.slug === 'pruneRateLimits')
    expect(task?.schedule?.[0]?.cron).toBe('17 * * * *')
    await payload().db.pool.query(`INSERT INTO rate_limits (key, points, expire) VALUES ('queued:old', 1, $1)`, [
      Date.now() - 1000,
    ])
    await payload().jobs.queue({ task: 'pruneRateLimits', input: {} })
    await payload().jobs.run({ limit: 10 })
    expect(
      (await payload().db.pool.query(`SELECT count(*) AS n FROM rate_limits WHERE key = 'queued:old'`)).rows[0].n,
    ).toBe('0')
  })
})

/**
 * A PostgreSQL restart under a stream of signed processor events. The database is a private
 * embedded server (never the machine's shared one), stopped and started again mid-stream; the
 * webhook runs in-process behind a real HTTP front (tests/support/billing-env.ts) and the stand-in
 * delivers and redelivers the events. Expected: no uncaught exception, one warning per pool,
 * /readyz 503 during the outage and 200 after, 500 for every event the outage hit, and after the
 * processor's retries every event's effects exactly once.
 */
import { PRICES, PRICE_IDS, service, standIn, seededRandom } from '../support/billing-env'

import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

import pg from 'pg'
import type { Payload } from 'payload'
import type Stripe from 'stripe'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'

import { type EmbeddedDatabase, startEmbeddedPostgres } from '../../src/db/embedded'
import { guardPool, poolLog, type PoolWarning } from '../../src/db/pool-errors'
import { createReadinessCheck } from '../../src/db/readiness'
import { CLIENT_ADDRESS_HEADER } from '../../src/http/client-address'
import { createHost, type Host } from '../../src/server/host'
import { freePort } from '../support/net'

const PURCHASES = 24
const WEBHOOK = `${service.url}/api/webhooks/processor`

// The private server, created before anything reads DATABASE_URL (the config is imported below).
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kit-outage-'))
// mkdtemp makes the folder private; the server runs as the postgres user when we are root.
fs.chmodSync(dataDir, 0o755)
const port = await freePort()
const startDatabase = () => startEmbeddedPostgres({ dataDir, port, database: 'kit' })
let database: EmbeddedDatabase = await startDatabase()
process.env.DATABASE_URL = database.url

const warnings: string[] = []
const uncaught: unknown[] = []
const onUncaught = (error: unknown) => uncaught.push(error)
let payload: Payload
let host: Host
let readyUrl = ''
const readiness = createReadinessCheck(database.url)

beforeAll(async () => {
  process.on('uncaughtExceptionMonitor', onUncaught)
  // Each pool's warning, as a line: its message, the pool's name, the driver's code and message.
  vi.spyOn(poolLog, 'warn').mockImplementation(((fields: Omit<PoolWarning, 'msg'>, msg: string) => {
    warnings.push(`${msg} pool ${fields.pool} ${fields.code ?? ''} ${fields.error}`)
  }) as never)
  const { default: config } = await import('../../payload.config')
  const { getPayload } = await import('payload')
  const { prepareDatabase } = await import('../../src/db/bootstrap')
  // The instance the webhook's HTTP front uses (Payload caches it under the default key).
  payload = await getPayload({ config })
  await prepareDatabase(payload, { priceIds: PRICE_IDS })
  host = createHost({
    handle: (_req, res) => {
      res.statusCode = 404
      res.end()
    },
    checkDatabase: readiness.check,
    maxBodyBytes: 1_000_000,
    maxUploadBytes: 1_000_000,
  })
  readyUrl = `http://127.0.0.1:${await host.listen(0, '127.0.0.1')}/readyz`
})

afterAll(async () => {
  process.off('uncaughtExceptionMonitor', onUncaught)
  vi.restoreAllMocks()
  await host?.close()
  await readiness.close()
  if (payload) {
    const { closePayload } = await import('../../src/db/bootstrap')
    await closePayload(payload)
  }
  await database.stop()
  fs.rmSync(dataDir, { recursive: true, force: true })
})

const query = async <Row extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<Row[]> => {
  const client = new pg.Client({ connectionString: database.url })
  await client.connect()
  try {
    return (await client.query<Row>(sql, params)).rows
  } finally {
    await client.end()
  }
}

const readyStatus = async () => (await fetch(readyUrl)).status

/** Our checkout endpoint, then the stand-in's "Pay" with delivery off: the events wait for the stream. */
const payQuietly = async (email: string, index: number): Promise<Stripe.Event[]> => {
  standIn.setWebhookUrl(null)
  try {
    const response = await fetch(`${service.url}/api/checkout_sessions`, {
      method: 'POST',
      // Each buyer from an address of its own, as real buyers are (the checkout limit counts per address).
      headers: { 'content-type': 'application/json', [CLIENT_ADDRESS_HEADER]: `100.70.0.${index + 1}` },
      body: JSON.stringify({ priceId: PRICES.standard }),
    })
    expect(response.status).toBe(200)
    const { id } = (await response.json()) as { id: string }
    return await standIn.pay(id, { email })
  } finally {
    standIn.setWebhookUrl(WEBHOOK)
  }
}

type Effects = Record<string, number>

/** Rows each purchase leaves, by table (analytics by event name), for one buyer's email. */
const effectsFor = async (email: string): Promise<Effects> => {
  const [counts] = await query<Record<string, string>>(
    `SELECT
       (SELECT count(*) FROM users WHERE email = $1) AS users,
       (SELECT count(*) FROM one_time_purchases WHERE email = $1) AS purchases,
       (SELECT count(*) FROM licenses WHERE email = $1) AS licenses,
       (SELECT count(*) FROM payment_history WHERE email = $1) AS payments,
       (SELECT count(*) FROM payload_jobs j JOIN licenses l ON j.input->>'licenseId' = l.id::text
         WHERE l.email = $1 AND j.task_slug = 'sendLicenseEmail') AS license_emails`,
    [email],
  )
  const analytics = await query<{ name: string; n: string }>(
    `SELECT name, count(*) AS n FROM analytics_events WHERE email = $1 GROUP BY name`,
    [email],
  )
  return Object.fromEntries([
    ...Object.entries(counts ?? {}).map(([key, value]) => [key, Number(value)] as const),
    ...analytics.map((row) => [`analytics:${row.name}`, Number(row.n)] as const),
  ])
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('a PostgreSQL restart under a stream of processor events', () => {
  it('answers 500 while the database is down, /readyz 503, and loses nothing once the processor retries', async () => {
    // A purchase before the outage: what one purchase leaves behind.
    const control = 'outage-control@example.test'
    for (const event of await payQuietly(control, 0)) expect((await standIn.redeliver(event.id)).status).toBe(200)
    const expected = await effectsFor(control)
    expect(expected).toMatchObject({ purchases: 1, licenses: 1, license_emails: 1 })

    const buyers = Array.from({ length: PURCHASES }, (_unused, index) => `outage-buyer-${index}@example.test`)
    const events: Stripe.Event[] = []
    for (const [index, email] of buyers.entries()) events.push(...(await payQuietly(email, index + 1)))
    const random = seededRandom(11)
    const stream = events
      .map((event) => ({ event, sort: random() }))
      .sort((a, b) => a.sort - b.sort)
      .map((item) => item.event)

    // The stream: one event every 25 ms, at most 4 in flight. The database stops while the first quarter
    // is in flight, the middle half is sent while it is down, the last quarter once it is back.
    const statuses = new Map<string, (number | null)[]>()
    const send = async (batch: Stripe.Event[]) => {
      const inFlight = new Set<Promise<void>>()
      for (const event of batch) {
        while (inFlight.size >= 4) await Promise.race(inFlight)
        const tracked: Promise<void> = standIn
          .redeliver(event.id)
          .then(({ status }) => {
            statuses.set(event.id, [...(statuses.get(event.id) ?? []), status])
          })
          .finally(() => inFlight.delete(tracked))
        inFlight.add(tracked)
        await sleep(25)
      }
      await Promise.all(inFlight)
    }
    const quarter = Math.floor(stream.length / 4)
    const [before, during, after] = [
      stream.slice(0, quarter),
      stream.slice(quarter, 3 * quarter),
      stream.slice(3 * quarter),
    ]
    const firstAnswers = (batch: Stripe.Event[]) => batch.map((event) => statuses.get(event.id)?.[0])

    expect(await readyStatus()).toBe(200)
    const sendingBefore = send(before)
    await sleep((quarter * 25) / 2)
    await database.stop()
    await sendingBefore
    const readyDuringOutage = [await readyStatus()]
    await send(during)
    readyDuringOutage.push(await readyStatus())
    database = await startDatabase()
    await send(after)

    // /readyz: 503 while the database was down, 200 once it is back.
    expect(readyDuringOutage).toEqual([503, 503])
    let ready = 0
    for (let attempt = 0; attempt < 50 && ready !== 200; attempt += 1) {
      ready = await readyStatus()
      if (ready !== 200) await sleep(100)
    }
    expect(ready).toBe(200)

    // Events in flight when it stopped were applied or refused with a 500; every event sent while it was
    // down got a 500 (so the processor retries), never a 4xx or no answer; every event sent once it was
    // back was applied at once, without restarting anything.
    expect(firstAnswers(before).every((status) => status === 200 || status === 500)).toBe(true)
    expect(firstAnswers(during)).toEqual(during.map(() => 500))
    expect(firstAnswers(after)).toEqual(after.map(() => 200))

    // The processor retries every event that did not get a 200.
    for (let round = 0; round < 5; round += 1) {
      const pending = stream.filter((event) => statuses.get(event.id)?.at(-1) !== 200)
      if (pending.length === 0) break
      for (const event of pending) statuses.get(event.id)!.push((await standIn.redeliver(event.id)).status)
    }
    expect(
      stream.filter((event) => statuses.get(event.id)?.at(-1) !== 200).map((event) => `${event.type} ${event.id}`),
    ).toEqual([])

    // Each event recorded once and applied (or ignored by type), none left failed.
    const recorded = await query<{ event_id: string; status: string; n: string }>(
      `SELECT event_id, min(status) AS status, count(*) AS n FROM processor_events WHERE event_id = ANY($1) GROUP BY event_id`,
      [stream.map((event) => event.id)],
    )
    expect(recorded).toHaveLength(stream.length)
    expect(recorded.filter((row) => row.n !== '1' || !['processed', 'ignored'].includes(row.status))).toEqual([])

    // Every buyer has exactly what the control purchase left: one purchase, one license, one email job...
    for (const email of buyers) expect({ email, ...(await effectsFor(email)) }).toEqual({ email, ...expected })

    // ...and the process took the restart as warnings, one per pool, never as an uncaught exception.
    expect(uncaught).toEqual([])
    const lost = warnings.filter((line) => line.includes('database connection lost'))
    expect(lost.filter((line) => line.includes('pool readiness'))).toHaveLength(1)
    const payloadPools = lost.filter((line) => line.includes('pool payload-'))
    expect(payloadPools.length).toBeGreaterThan(0)
    expect(new Set(payloadPools.map((line) => /pool (payload-\d+)/.exec(line)?.[1])).size).toBe(payloadPools.length)
    expect(lost.join('\n')).not.toContain(database.url)
    expect(lost.join('\n')).not.toMatch(/postgres:postgres@/)
  }, 180_000)
})

describe('the pool guard', () => {
  it('warns once per outage for idle and checked-out clients alike, and again for the next outage', async () => {
    const warned: PoolWarning[] = []
    const pool = guardPool(
      new pg.Pool({ connectionString: database.url, max: 3, application_name: 'outage-probe' }),
      'probe',
      (warning) => {
        warned.push(warning)
      },
    )
    const dropConnections = () =>
      query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'outage-probe'`)
    try {
      const clients = await Promise.all([pool.connect(), pool.connect(), pool.connect()])
      // Two idle clients (the pool re-emits their errors) and one checked out between queries (it emits its own).
      clients[0].release()
      clients[1].release()
      await dropConnections()
      await sleep(200)
      clients[2].release(true)
      expect(warned).toEqual([
        {
          msg: 'database connection lost; queries fail until it is back',
          pool: 'probe',
          code: '57P01',
          error: 'terminating connection due to administrator command',
        },
      ])

      // Once the pool has connected again, well after the warning, the next outage is a new one.
      await sleep(5_100)
      await pool.query('SELECT 1')
      await dropConnections()
      await sleep(200)
      expect(warned).toHaveLength(2)
      expect(uncaught).toEqual([])
    } finally {
      await pool.end()
    }
  }, 30_000)
})

/**
 * The production server (`server.ts` on the production build) through a PostgreSQL restart: its
 * pools (the jobs worker's, Next's Payload instance's, the readiness probe's) log one warning each
 * instead of throwing, /readyz answers 503 while the database is down and 200 after, the webhook
 * answers 500 so the processor retries, nothing is lost once it does, and SIGTERM still exits 0.
 * The database is a private embedded server; the processor is the stand-in, in this process.
 *
 * Needs `npm run build` first: it runs when KIT_PRODUCTION_BUILD=1 (.ci/run sets it after the build).
 */
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

import pg from 'pg'
import type Stripe from 'stripe'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { type EmbeddedDatabase, startEmbeddedPostgres } from '../../src/db/embedded'
import { type ProcessorStandIn, startProcessorStandIn } from '@starter-kit/standins/processor'
import { freePort } from '../support/net'
import { type NodeProcess, spawnNode, waitForReady, BUILT_SERVER } from '../support/production-server'

const enabled = process.env.KIT_PRODUCTION_BUILD === '1'
const PRICE = 'price_standin_standard_lifetime'
const SECRET_KEY = 'sk_test_outage_0123456789'
const WEBHOOK_SECRET = 'whsec_outage_0123456789'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe.runIf(enabled)('the production server through a PostgreSQL restart', () => {
  let dataDir = ''
  let dbPort = 0
  let database: EmbeddedDatabase
  let standIn: ProcessorStandIn
  let server: NodeProcess
  let base = ''

  const startDatabase = () =>
    startEmbeddedPostgres({ dataDir: path.join(dataDir, 'db'), port: dbPort, database: 'kit' })
  const get = async (url: string) => {
    const response = await fetch(`${base}${url}`, { signal: AbortSignal.timeout(10_000) })
    await response.arrayBuffer()
    return response.status
  }
  const licensesOf = async (email: string) => {
    const client = new pg.Client({ connectionString: database.url })
    await client.connect()
    try {
      return (await client.query('SELECT id FROM licenses WHERE email = $1', [email])).rowCount
    } finally {
      await client.end()
    }
  }
  const checkout = async (address: string) => {
    const response = await fetch(`${base}/api/checkout_sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: base, 'x-forwarded-for': address },
      body: JSON.stringify({ priceId: PRICE }),
    })
    expect(response.status).toBe(200)
    return ((await response.json()) as { id: string }).id
  }
  const lastStatuses = (events: Stripe.Event[]) =>
    events.map(
      (event) =>
        standIn
          .events()
          .find((record) => record.event.id === event.id)
          ?.deliveries.at(-1)?.status,
    )

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kit-outage-server-'))
    // mkdtemp makes the folder private; the database runs as the postgres user when we are root.
    fs.chmodSync(dataDir, 0o755)
    dbPort = await freePort()
    database = await startDatabase()
    const port = await freePort()
    base = `http://127.0.0.1:${port}`
    standIn = await startProcessorStandIn({
      secretKey: SECRET_KEY,
      webhookSecret: WEBHOOK_SECRET,
      webhookUrl: `${base}/api/webhooks/processor`,
    })
    server = spawnNode('server', [BUILT_SERVER], {
      PATH: process.env.PATH ?? '',
      HOME: os.tmpdir(),
      NODE_ENV: 'production',
      PORT: String(port),
      DATABASE_URL: database.url,
      SERVER_URL: base,
      PAYLOAD_SECRET: crypto.randomBytes(24).toString('hex'),
      SMTP_URL: 'smtp://127.0.0.1:9',
      PAYMENT_SECRET_KEY: SECRET_KEY,
      PAYMENT_WEBHOOK_SECRET: WEBHOOK_SECRET,
      PUBLIC_PAYMENT_PUBLISHABLE_KEY: 'pk_test_outage_0123456789',
      PAYMENT_API_URL: standIn.url,
      PUBLIC_PRICE_ID_STANDARD_LIFETIME: PRICE,
      REPO_ACCESS_TOKEN: 'outage-token',
      REPO_OWNER: 'kit-org',
      REPO_NAME: 'starter-kit',
      REPO_API_URL: 'http://127.0.0.1:9',
      LICENSE_SIGNING_KEY: crypto
        .generateKeyPairSync('ed25519')
        .privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
      DATA_DIR: path.join(dataDir, 'data'),
      MEDIA_DIR: path.join(dataDir, 'media'),
      CONTENT_IMPORT_ON_START: 'false',
      TRUSTED_PROXIES: '127.0.0.1',
    })
    await waitForReady(server, base, 120_000)
  }, 180_000)

  afterAll(async () => {
    if (server && server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGKILL')
    await standIn?.close()
    await database?.stop()
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true })
  })

  it('logs each pool once, answers 503 and 500 while the database is down, recovers, and loses nothing', async () => {
    // Next's Payload instance exists once a route asked for it; a first purchase goes through.
    expect(await get('/api/plans')).toBe(200)
    const before = await standIn.pay(await checkout('198.51.100.1'), { email: 'before@example.test' })
    expect(lastStatuses(before).every((status) => status === 200)).toBe(true)
    expect(await licensesOf('before@example.test')).toBe(1)
    const during = await checkout('198.51.100.2')

    await database.stop()
    expect(await get('/readyz')).toBe(503)
    expect(await get('/healthz')).toBe(200)
    const paidDuringOutage = await standIn.pay(during, { email: 'during@example.test' })
    expect(lastStatuses(paidDuringOutage).every((status) => status === 500)).toBe(true)
    await sleep(1_000)
    database = await startDatabase()

    await waitForReady(server, base, 30_000)
    expect(await get('/api/plans')).toBe(200)
    // The processor's retries.
    for (const event of paidDuringOutage) expect((await standIn.redeliver(event.id)).status).toBe(200)
    expect(await licensesOf('during@example.test')).toBe(1)
    expect(await licensesOf('before@example.test')).toBe(1)
    for (const event of [...before, ...paidDuringOutage]) expect((await standIn.redeliver(event.id)).status).toBe(200)
    expect(await licensesOf('during@example.test')).toBe(1)

    // Still the same process: nothing crashed it, and nothing escaped as an uncaught exception.
    expect(server.child.exitCode).toBeNull()
    expect(server.output()).not.toMatch(/uncaught|unhandled 'error' event/i)
    const lost = server
      .output()
      .split('\n')
      .filter((line) => line.includes('database connection lost'))
    const pools = lost.map((line) => (JSON.parse(line) as { pool?: string }).pool)
    expect(pools.filter((pool) => pool === 'readiness')).toHaveLength(1)
    const payloadPools = pools.filter((pool) => pool?.startsWith('payload-'))
    // The process's one Payload instance (Next's routes, the jobs worker and the host's direct paths share
    // it; the database preparation ran in a child process that has exited), once.
    expect(new Set(payloadPools).size).toBe(1)
    expect(payloadPools).toHaveLength(1)
    expect(lost.join('\n')).not.toContain('postgres:postgres@')

    server.child.kill('SIGTERM')
    expect(await Promise.race([server.exited, sleep(30_000).then(() => 'timeout')])).toBe(0)
    expect(server.output()).toContain('server stopped')
  }, 120_000)
})

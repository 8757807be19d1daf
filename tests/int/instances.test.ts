/**
 * Two production servers (`server.ts` on the production build) on one fresh database, started at the
 * same moment, as two instances behind a load balancer would be: start-up work happens once, the same
 * processor events sent to both are applied once, every queued email is sent once although both
 * processes work the jobs queue, request races across the two behave as on one instance, and a session
 * made on one is honoured and ended on the other. Then a server with JOBS_WORKER=false leaves its queue
 * to the separate worker (`npm run jobs`: scripts/jobs.ts, built into dist/scripts/jobs.mjs).
 * The database is a fresh one on the test PostgreSQL server; the processor, the code host and the SMTP
 * server are the stand-ins and the test sink, in this process.
 *
 * Needs `npm run build` first: it runs when KIT_PRODUCTION_BUILD=1 (.ci/run sets it after the build).
 */
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

import type { AddressObject, ParsedMail } from 'mailparser'
import pg from 'pg'
import type Stripe from 'stripe'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'

import { migrations } from '../../migrations'
import { RATE_LIMITS } from '../../src/auth/rate-limit'
import { type CodeHostStandIn, startCodeHostStandIn } from '@starter-kit/standins/code-host'
import { type ProcessorStandIn, startProcessorStandIn } from '@starter-kit/standins/processor'
import { adminQuery, ident, withDatabase } from '../support/databases'
import { freePort, jsonOrText, type UntypedJson } from '../support/net'
import { type NodeProcess, spawnNode, waitForReady as waitForServer, BUILT_SERVER } from '../support/production-server'
import { type SmtpSink, startSmtpSink } from '../support/smtp-sink'
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver'

const root = path.resolve(import.meta.dirname, '../..')
const enabled = process.env.KIT_PRODUCTION_BUILD === '1'
const PRICES = { standard: 'price_standin_standard_lifetime', ultimate: 'price_standin_ultimate_lifetime' }
const SECRET_KEY = 'sk_test_instances_0123456789'
const WEBHOOK_SECRET = 'whsec_instances_0123456789'
const REPO = { token: 'ghp_instances_0123456789', owner: 'kit-org', name: 'starter-kit' }
/** The load balancer's address: SERVER_URL of every instance, the Origin browsers send. */
const PUBLIC_URL = 'http://kit.example.test'
const PASSWORD = 'correct horse battery staple'
/** Anonymous buyers; two more (the signed-up users) buy Ultimate. */
const BUYERS = 8

/** What a crash or an escaped error prints. */
const UNCAUGHT = /uncaught|unhandled 'error' event|unhandledRejection/i

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

type Env = Record<string, string>

type Proc = NodeProcess & { base: string }

/** Runs `work` over `items`, `width` at a time. */
const inParallel = async <T, R>(
  items: T[],
  width: number,
  work: (item: T, index: number) => Promise<R>,
): Promise<R[]> => {
  const results: R[] = new Array(items.length)
  let next = 0
  await Promise.all(
    Array.from({ length: Math.min(width, items.length) }, async () => {
      while (next < items.length) {
        const index = next++
        results[index] = await work(items[index] as T, index)
      }
    }),
  )
  return results
}

const recipientsOf = (message: ParsedMail): string[] =>
  (Array.isArray(message.to) ? message.to : message.to ? [message.to] : []).flatMap((to: AddressObject) =>
    to.value.map((entry) => entry.address?.toLowerCase() ?? ''),
  )

let addressCounter = 0
/** A client address of its own for each request (the servers trust 127.0.0.1's X-Forwarded-For). */
const nextAddress = () => `198.18.${Math.floor(addressCounter / 250)}.${(addressCounter++ % 250) + 1}`

describe.runIf(enabled)('two production servers on one database', () => {
  const adminUrl = inject('adminDatabaseUrl')
  const database = `kit_instances_${process.pid}_${crypto.randomBytes(4).toString('hex')}`
  const databaseUrl = withDatabase(adminUrl, database)
  let dir = ''
  let smtp: SmtpSink
  let processor: ProcessorStandIn
  let codeHost: CodeHostStandIn
  let receiver: WebhookReceiver
  let db: pg.Client
  let env: Env = {}
  const procs: Proc[] = []
  let a: Proc
  let b: Proc

  const start = (name: string, args: string[], extra: Env): Proc => {
    const proc = {
      ...spawnNode(name, args, { ...env, ...extra } as NodeJS.ProcessEnv),
      base: extra.PORT ? `http://127.0.0.1:${extra.PORT}` : '',
    }
    procs.push(proc)
    return proc
  }
  const startServer = async (name: string, extra: Env = {}) => {
    const port = await freePort()
    return start(name, [BUILT_SERVER], { PORT: String(port), DATA_DIR: path.join(dir, `data-${name}`), ...extra })
  }
  const waitForReady = (proc: Proc, timeoutMs = 180_000) => waitForServer(proc, proc.base, timeoutMs)
  const stop = async (proc: Proc) => {
    proc.child.kill('SIGTERM')
    return Promise.race([proc.exited, sleep(40_000).then(() => 'timeout')])
  }

  type Answer = { status: number; body: UntypedJson; headers: Headers }
  const call = async (
    proc: Proc,
    method: string,
    url: string,
    options: { body?: unknown; token?: string; cookie?: string; address?: string } = {},
  ): Promise<Answer> => {
    const headers: Record<string, string> = { origin: PUBLIC_URL, 'x-forwarded-for': options.address ?? nextAddress() }
    if (options.body !== undefined) headers['content-type'] = 'application/json'
    if (options.token) headers.authorization = `JWT ${options.token}`
    if (options.cookie) headers.cookie = options.cookie
    const response = await fetch(`${proc.base}${url}`, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      redirect: 'manual',
      signal: AbortSignal.timeout(30_000),
    })
    return { status: response.status, body: jsonOrText(await response.text()), headers: response.headers }
  }
  const count = async (sql: string, values: unknown[] = []) =>
    Number((await db.query<{ n: string }>(sql, values)).rows[0]?.n ?? 0)
  /** The email jobs still queued or running (completed jobs are deleted). */
  const pendingEmailJobs = () =>
    count(`SELECT count(*) AS n FROM payload_jobs WHERE task_slug IN ('sendEmail', 'sendLicenseEmail')`)
  /** Every queued email sent and its job gone, plus a moment for a second runner of the same job to finish. */
  const settleEmails = async (timeoutMs = 60_000) => {
    const deadline = Date.now() + timeoutMs
    while ((await pendingEmailJobs()) > 0) {
      if (Date.now() > deadline) {
        const jobs = await db.query('SELECT id, task_slug, processing, has_error, total_tried, error FROM payload_jobs')
        throw new Error(`email jobs still queued after ${timeoutMs} ms: ${JSON.stringify(jobs.rows)}`)
      }
      await sleep(250)
    }
    await sleep(2_000)
  }
  const mailsTo = (address: string, subject?: RegExp) =>
    smtp.messages.filter(
      (message) =>
        recipientsOf(message).includes(address.toLowerCase()) && (!subject || subject.test(message.subject ?? '')),
    )
  const linkIn = (message: ParsedMail, type: string) => {
    const match = new RegExp(`/auth/callback\\?type=${type}&token=[A-Za-z0-9_-]+`).exec(message.text ?? '')
    if (!match) throw new Error(`no ${type} link in: ${message.text}`)
    return match[0]
  }
  const sessionCookie = (answer: Answer) => {
    const cookie = answer.headers.getSetCookie().find((value) => value.startsWith('payload-token='))
    return cookie ? cookie.split(';')[0]! : null
  }

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kit-instances-'))
    await adminQuery(adminUrl, `CREATE DATABASE ${ident(database)}`)
    db = new pg.Client({ connectionString: databaseUrl })
    await db.connect()
    smtp = await startSmtpSink()
    // Events are recorded, not delivered: the test sends each one to both servers itself.
    processor = await startProcessorStandIn({ secretKey: SECRET_KEY, webhookSecret: WEBHOOK_SECRET, webhookUrl: null })
    codeHost = await startCodeHostStandIn({
      token: REPO.token,
      owner: REPO.owner,
      repo: REPO.name,
      everyLoginExists: true,
    })
    // The seller's webhook receiver, on this machine (WEBHOOK_ALLOW_PRIVATE below lets the servers call 127.0.0.1).
    receiver = await startWebhookReceiver()
    env = {
      PATH: process.env.PATH ?? '',
      HOME: os.tmpdir(),
      NODE_ENV: 'production',
      DATABASE_URL: databaseUrl,
      SERVER_URL: PUBLIC_URL,
      // What every instance shares: the secrets, the database, the providers, the media folder.
      PAYLOAD_SECRET: crypto.randomBytes(24).toString('hex'),
      LICENSE_SIGNING_KEY: crypto
        .generateKeyPairSync('ed25519')
        .privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
      SMTP_URL: smtp.url,
      PAYMENT_SECRET_KEY: SECRET_KEY,
      PAYMENT_WEBHOOK_SECRET: WEBHOOK_SECRET,
      PUBLIC_PAYMENT_PUBLISHABLE_KEY: 'pk_test_instances_0123456789',
      PAYMENT_API_URL: processor.url,
      PUBLIC_PRICE_ID_STANDARD_LIFETIME: PRICES.standard,
      PUBLIC_PRICE_ID_ULTIMATE_LIFETIME: PRICES.ultimate,
      REPO_ACCESS_TOKEN: REPO.token,
      REPO_OWNER: REPO.owner,
      REPO_NAME: REPO.name,
      REPO_API_URL: codeHost.url,
      MEDIA_DIR: path.join(dir, 'media'),
      TRUSTED_PROXIES: '127.0.0.1',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WEBHOOK_RETRY_BASE_MS: '500',
    }
    // Both at once, on an empty database: migrations, plan seeding and the content import race.
    a = await startServer('a')
    b = await startServer('b')
    await Promise.all([waitForReady(a), waitForReady(b)])
  }, 240_000)

  afterAll(async () => {
    for (const proc of procs)
      if (proc.child.exitCode === null && proc.child.signalCode === null) proc.child.kill('SIGKILL')
    await Promise.all(procs.map((proc) => Promise.race([proc.exited, sleep(5_000)])))
    await db?.end().catch(() => undefined)
    await processor?.close()
    await codeHost?.close()
    await receiver?.close()
    await smtp?.close()
    await adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${ident(database)} WITH (FORCE)`).catch(() => undefined)
    if (dir) fs.rmSync(dir, { recursive: true, force: true })
  })

  it('start together: each migration applied once, each plan seeded once, each post imported once', async () => {
    const applied = await db.query<{ name: string; n: string }>(
      'SELECT name, count(*) AS n FROM payload_migrations GROUP BY name',
    )
    expect(
      applied.rows
        .filter((row) => row.name !== 'dev')
        .map((row) => row.name)
        .sort(),
    ).toEqual(migrations.map((migration) => migration.name).sort())
    expect(applied.rows.every((row) => Number(row.n) === 1)).toBe(true)

    const plans = await db.query<{ slug: string; n: string }>('SELECT slug, count(*) AS n FROM plans GROUP BY slug')
    expect(plans.rows.map((row) => row.slug)).toEqual(expect.arrayContaining(['standard', 'ultimate']))
    expect(plans.rows.every((row) => Number(row.n) === 1)).toBe(true)

    const sources = (folder: string) =>
      fs.readdirSync(path.join(root, 'src/content', folder)).filter((file) => file.endsWith('.mdx')).length
    const posts = await db.query<{ slug: string; n: string }>('SELECT slug, count(*) AS n FROM posts GROUP BY slug')
    expect(posts.rows).toHaveLength(sources('blog'))
    expect(posts.rows.every((row) => Number(row.n) === 1)).toBe(true)
    const entries = await db.query<{ n: string }>('SELECT count(*) AS n FROM changelog_entries GROUP BY slug')
    expect(entries.rows).toHaveLength(sources('changelog'))
    expect(entries.rows.every((row) => Number(row.n) === 1)).toBe(true)

    // One of the two did the seeding; the other found it done.
    expect([a, b].filter((proc) => proc.output().includes('seeded plans:'))).toHaveLength(1)
    for (const proc of [a, b]) expect(proc.output()).not.toMatch(UNCAUGHT)
  })

  it('share rate limits, and send each account email once although both work the jobs queue', async () => {
    // Twelve magic links from one client address, six to each server at once: its limit is 10 in 10 minutes.
    const address = '203.0.113.50'
    const emails = Array.from({ length: 12 }, (_, index) => `link-${index}@example.test`)
    const answers = await Promise.all(
      emails.map((email, index) =>
        call(index % 2 ? b : a, 'POST', '/api/auth/magic-link', { body: { email }, address }),
      ),
    )
    expect(answers.map((answer) => answer.status).sort()).toEqual([...Array(10).fill(200), 429, 429])
    await settleEmails()
    emails.forEach((email, index) => expect(mailsTo(email)).toHaveLength(answers[index]!.status === 200 ? 1 : 0))
  })

  it("share the GraphQL limits: one address's requests counted across both servers; a 200-alias query refused by either", async () => {
    const address = '203.0.113.51'
    const query = { query: '{ Plans { docs { id } } }' }
    const limit = RATE_LIMITS['graphql:ip'].points
    const answers = await Promise.all(
      Array.from({ length: limit + 4 }, (_, index) =>
        call(index % 2 ? b : a, 'POST', '/api/graphql', { body: query, address }),
      ),
    )
    expect(answers.map((answer) => answer.status).sort()).toEqual([...Array(limit).fill(200), 429, 429, 429, 429])
    const aliases = `{ ${Array.from({ length: 200 }, (_, index) => `a${index}: Plans(limit: 100) { docs { id name } }`).join(' ')} }`
    for (const server of [a, b]) {
      const refused = await call(server, 'POST', '/api/graphql', { body: { query: aliases }, address: nextAddress() })
      expect(refused.status).toBe(400)
      expect(JSON.stringify(refused.body)).toContain('query_too_complex')
    }
  })

  let first: { email: string; token: string }
  let second: { email: string; token: string }

  it('a session made on one server is honoured by the other, and signing out on one ends it on both', async () => {
    const users = ['one', 'two'].map((name) => `${name}-${crypto.randomBytes(3).toString('hex')}@example.test`)
    // Signed up on A and on B; each confirms the link on the other server.
    const signUps = await Promise.all(
      users.map((email, index) =>
        call(index ? b : a, 'POST', '/api/auth/sign-up', { body: { email, password: PASSWORD } }),
      ),
    )
    expect(signUps.map((answer) => answer.status)).toEqual([200, 200])
    const links = await Promise.all(
      users.map((email) => smtp.waitFor((message) => recipientsOf(message).includes(email), 30_000)),
    )
    // The same browser that signed up (its sign-up cookie), on the other server: the password chosen at sign-up is kept.
    const signUpCookies = signUps.map(
      (answer) =>
        answer.headers
          .getSetCookie()
          .find((value) => value.startsWith('kit-signup='))!
          .split(';')[0]!,
    )
    const confirmed = await Promise.all(
      links.map((message, index) =>
        call(index ? a : b, 'GET', linkIn(message, 'verify'), { cookie: signUpCookies[index]! }),
      ),
    )
    for (const answer of confirmed) expect([302, 303, 307]).toContain(answer.status)
    const cookies = confirmed.map(sessionCookie)
    expect(cookies.every(Boolean)).toBe(true)
    // The cookie B set is a session on A, and A's on B.
    expect((await call(a, 'GET', '/api/users/me', { cookie: cookies[0]! })).body.user?.email).toBe(users[0])
    expect((await call(b, 'GET', '/api/users/me', { cookie: cookies[1]! })).body.user?.email).toBe(users[1])

    // Password sign-in on A; the token and the cookie work on B.
    const login = await call(a, 'POST', '/api/users/login', { body: { email: users[0], password: PASSWORD } })
    expect(login.status).toBe(200)
    const cookie = sessionCookie(login)!
    expect((await call(b, 'GET', '/api/users/me', { cookie })).body.user?.email).toBe(users[0])
    expect((await call(b, 'GET', '/api/users/me', { token: login.body.token })).body.user?.email).toBe(users[0])
    // Signing out on A ends that session on B; the user's other session (from the link) lives on.
    expect((await call(a, 'POST', '/api/users/logout', { cookie })).status).toBe(200)
    expect((await call(b, 'GET', '/api/users/me', { cookie })).body.user).toBeNull()
    expect((await call(b, 'GET', '/api/users/me', { token: login.body.token })).body.user).toBeNull()
    expect((await call(b, 'GET', '/api/users/me', { cookie: cookies[0]! })).body.user?.email).toBe(users[0])

    const signIn = async (email: string, proc: Proc) => {
      const answer = await call(proc, 'POST', '/api/users/login', { body: { email, password: PASSWORD } })
      expect(answer.status).toBe(200)
      return { email, token: answer.body.token as string }
    }
    first = await signIn(users[0]!, b)
    second = await signIn(users[1]!, a)
    await settleEmails()
    for (const email of users) expect(mailsTo(email)).toHaveLength(1)
  })

  it('an admin sets up a webhook endpoint on one server and reads its secret once on the other', async () => {
    // The first user made an admin (as the first account of a real deployment is).
    await db.query(`UPDATE users_roles SET value = 'admin' WHERE parent_id = (SELECT id FROM users WHERE email = $1)`, [
      first.email,
    ])
    receiver.route('/flaky', { kind: 'fail', times: 3 })
    const created = await call(a, 'POST', '/api/webhook_endpoints', {
      token: first.token,
      body: { url: `${receiver.url}/flaky`, events: ['order.paid', 'license.created'], description: 'CRM' },
    })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    expect(JSON.stringify(created.body)).not.toMatch(/whsec_|secretSealed/)
    endpointId = created.body.doc.id
    const reveals = await Promise.all(
      [a, b].map((proc) =>
        call(proc, 'POST', `/api/staff/webhook-endpoints/${endpointId}/reveal-secret`, { token: first.token }),
      ),
    )
    expect(reveals.map((answer) => answer.status).sort()).toEqual([200, 409])
    receiver.route('/flaky', { kind: 'fail', times: 3 }, [reveals.find((answer) => answer.status === 200)!.body.secret])
    // Not the customer's to read or change.
    expect((await call(b, 'GET', `/api/webhook_endpoints/${endpointId}`, { token: second.token })).status).toBe(403)
    expect(
      (await call(b, 'POST', `/api/staff/webhook-endpoints/${endpointId}/reveal-secret`, { token: second.token }))
        .status,
    ).toBe(403)
  })

  let endpointId = 0

  it('the same processor events sent to both servers: one purchase, license, payment and license email per buyer', async () => {
    // Checkouts on either server: the two users buy Ultimate signed in, the others Standard anonymously.
    const buyers = [
      { email: first.email, token: first.token, price: PRICES.ultimate },
      { email: second.email, token: second.token, price: PRICES.ultimate },
      ...Array.from({ length: BUYERS }, (_, index) => ({
        email: `buyer-${index}@example.test`,
        token: undefined,
        price: PRICES.standard,
      })),
    ]
    const sessions = await Promise.all(
      buyers.map(async (buyer, index) => {
        const answer = await call(index % 2 ? b : a, 'POST', '/api/checkout_sessions', {
          body: { priceId: buyer.price },
          token: buyer.token,
        })
        expect(answer.status).toBe(200)
        return answer.body.id as string
      }),
    )
    const events: Stripe.Event[] = []
    for (const [index, session] of sessions.entries())
      events.push(...(await processor.pay(session, { email: buyers[index]!.email })))
    expect(events.filter((event) => event.type === 'checkout.session.completed')).toHaveLength(buyers.length)

    // Each event to both servers at once, eight events at a time; then every event to both again.
    const outcomes = new Map<string, string[]>()
    const deliver = async (proc: Proc, event: Stripe.Event) => {
      const body = JSON.stringify(event)
      const response = await fetch(`${proc.base}/api/webhooks/processor`, {
        method: 'POST',
        headers: { 'content-type': 'application/json; charset=utf-8', 'stripe-signature': processor.sign(body) },
        body,
        signal: AbortSignal.timeout(30_000),
      })
      const answer = (await response.json()) as { outcome?: string }
      expect(response.status, `${event.type} ${event.id} on ${proc.name}: ${JSON.stringify(answer)}`).toBe(200)
      outcomes.set(event.id, [...(outcomes.get(event.id) ?? []), answer.outcome ?? 'none'])
    }
    await inParallel(events, 8, (event, index) =>
      Promise.all(index % 2 ? [deliver(b, event), deliver(a, event)] : [deliver(a, event), deliver(b, event)]),
    )
    await inParallel([...events].reverse(), 8, (event) => Promise.all([deliver(a, event), deliver(b, event)]))

    // Each handled event was applied by exactly one of its four deliveries.
    const handled = await db.query<{ event_id: string; status: string; attempts: string }>(
      `SELECT event_id, status, attempts FROM processor_events WHERE event_id = ANY($1)`,
      [events.map((event) => event.id)],
    )
    expect(handled.rows).toHaveLength(events.length)
    for (const row of handled.rows) {
      const answers = outcomes.get(row.event_id)!
      expect(answers).toHaveLength(4)
      if (row.status === 'ignored') {
        expect(answers).toEqual(Array(4).fill('ignored'))
      } else {
        expect(row.status).toBe('processed')
        expect(Number(row.attempts)).toBe(1)
        expect(answers.filter((outcome) => outcome === 'processed')).toHaveLength(1)
        expect(answers.filter((outcome) => outcome === 'duplicate')).toHaveLength(3)
      }
    }

    for (const [index, session] of sessions.entries()) {
      const purchase = await db.query<{ id: number; processor_payment_intent_id: string }>(
        'SELECT id, processor_payment_intent_id FROM one_time_purchases WHERE processor_checkout_session_id = $1',
        [session],
      )
      expect(purchase.rows).toHaveLength(1)
      const { id, processor_payment_intent_id: paymentIntent } = purchase.rows[0]!
      expect(await count('SELECT count(*) AS n FROM licenses WHERE one_time_purchase_id = $1', [id])).toBe(1)
      expect(
        await count('SELECT count(*) AS n FROM payment_history WHERE processor_payment_id = $1', [paymentIntent]),
      ).toBe(1)
      expect(await count('SELECT count(*) AS n FROM licenses WHERE email = $1', [buyers[index]!.email])).toBe(1)
    }

    await settleEmails()
    for (const buyer of buyers) expect(mailsTo(buyer.email, /license$/)).toHaveLength(1)
    expect(await count(`SELECT count(*) AS n FROM payload_jobs WHERE has_error`)).toBe(0)

    // The seller's receiver, failing its first three answers, heard of each sale and license once, signed.
    const deadline = Date.now() + 60_000
    while ((await count(`SELECT count(*) AS n FROM payload_jobs WHERE task_slug = 'deliverWebhook'`)) > 0) {
      if (Date.now() > deadline)
        throw new Error(
          `webhook deliveries still queued: ${JSON.stringify((await db.query('SELECT * FROM payload_jobs')).rows)}`,
        )
      await sleep(250)
    }
    const delivered = receiver.at('/flaky').filter((record) => record.status === 200)
    expect(delivered.every((record) => record.verified)).toBe(true)
    expect(new Set(delivered.map((record) => record.id)).size).toBe(delivered.length)
    for (const type of ['order.paid', 'license.created']) {
      const emails = delivered
        .filter((record) => record.verified!.type === type)
        .map((record) => record.verified!.data.customer.email)
      expect(emails.sort(), type).toEqual(buyers.map((buyer) => buyer.email).sort())
    }
    expect(receiver.at('/flaky').filter((record) => record.status === 500)).toHaveLength(3)
    expect(await count('SELECT count(*) AS n FROM webhook_deliveries WHERE endpoint_id = $1', [endpointId])).toBe(
      2 * buyers.length + 3,
    )
  }, 180_000)

  it('request races across the servers end as on one server', async () => {
    const ask = (proc: Proc, who: { token: string }, username: string) =>
      call(proc, 'POST', '/api/repo-access', { token: who.token, body: { username } })
    const invitedLogins = () =>
      [...codeHost.state.invitations.values()].map((invitation) => invitation.login.toLowerCase())

    // Two accounts ask for one username at the same moment, one on each server: one gets it.
    const contested = await Promise.all([ask(a, first, 'shared-login'), ask(b, second, 'shared-login')])
    expect(contested.map((answer) => answer.status).sort()).toEqual([200, 409])
    expect(contested.find((answer) => answer.status === 409)!.body.errors[0].code).toBe('username_taken')
    expect(invitedLogins().filter((login) => login === 'shared-login')).toHaveLength(1)
    expect(await count(`SELECT count(*) AS n FROM repo_usernames WHERE username_key = 'shared-login'`)).toBe(1)
    const [winner, loser] = contested[0].status === 200 ? [first, second] : [second, first]

    // One account asks for three usernames at once across both servers: one row, one invitation left.
    const logins = ['race-one', 'race-two', 'race-three']
    const raced = await Promise.all(logins.map((login, index) => ask(index % 2 ? b : a, loser, login)))
    expect(raced.map((answer) => answer.status)).toEqual([200, 200, 200])
    const userId = (await call(a, 'GET', '/api/users/me', { token: loser.token })).body.user.id as number
    const rows = await db.query<{ username: string; status: string }>(
      'SELECT username, status FROM repo_access WHERE user_id = $1',
      [userId],
    )
    expect(rows.rows).toHaveLength(1)
    const kept = rows.rows[0]!.username
    expect(logins).toContain(kept)
    expect(invitedLogins()).toContain(kept)
    for (const login of logins.filter((login) => login !== kept)) expect(invitedLogins()).not.toContain(login)
    expect(await count('SELECT count(*) AS n FROM repo_usernames WHERE user_id = $1', [userId])).toBe(1)

    // A stale pending request read on both servers at once asks the code host once.
    await db.query(
      `UPDATE repo_access SET last_checked_at = now() - interval '2 minutes' WHERE lower(username) = 'shared-login'`,
    )
    const since = codeHost.state.requests.length
    const reads = await Promise.all(
      [a, b, a, b].map((proc) => call(proc, 'GET', '/api/repo-access', { token: winner.token })),
    )
    expect(reads.map((answer) => answer.status)).toEqual([200, 200, 200, 200])
    expect(reads.map((answer) => answer.body.username)).toEqual(Array(4).fill('shared-login'))
    const checks = codeHost.state.requests
      .slice(since)
      .filter((request) => request.method === 'GET' && request.path.endsWith('/collaborators/shared-login'))
    expect(checks).toHaveLength(1)
  })

  it('team races across the servers: seats and activations never pass their limits', async () => {
    // The first user's Ultimate license, made a 3-seat license with a limit of 2 activations.
    const userId = (await call(a, 'GET', '/api/users/me', { token: first.token })).body.user.id as number
    const license = (
      await db.query<{ id: number; key: string; plan_id: number }>(
        'SELECT id, key, plan_id FROM licenses WHERE user_id = $1',
        [userId],
      )
    ).rows[0]!
    await db.query('UPDATE licenses SET seats = 3 WHERE id = $1', [license.id])
    await db.query('UPDATE plans SET max_activations = 2 WHERE id = $1', [license.plan_id])

    const assigned = await Promise.all(
      Array.from({ length: 8 }, (_, index) =>
        call(index % 2 ? b : a, 'POST', `/api/licenses/${license.id}/seats`, {
          token: first.token,
          body: { email: `team-${index}@example.test` },
        }),
      ),
    )
    expect(assigned.filter((answer) => answer.status === 201)).toHaveLength(2)
    expect(assigned.filter((answer) => answer.status === 409).map((answer) => answer.body.errors[0].code)).toEqual(
      Array(6).fill('seats_exhausted'),
    )
    expect(
      await count(`SELECT count(*) AS n FROM license_seats WHERE license_id = $1 AND status <> 'revoked'`, [
        license.id,
      ]),
    ).toBe(2)
    // Each seat's claim link sent once, although both servers work the queue.
    await settleEmails()
    const invited = assigned.flatMap((answer) => (answer.status === 201 ? [answer.body.email as string] : []))
    for (const email of invited) expect(mailsTo(email, /seat/)).toHaveLength(1)

    const activated = await Promise.all(
      Array.from({ length: 10 }, (_, index) =>
        call(index % 2 ? b : a, 'POST', '/api/licenses/activate', {
          body: { key: license.key, fingerprint: `machine-${index}` },
        }),
      ),
    )
    expect(activated.filter((answer) => answer.status === 201)).toHaveLength(2)
    expect(activated.filter((answer) => answer.status === 409)).toHaveLength(8)
    expect(
      await count('SELECT count(*) AS n FROM license_activations WHERE license_id = $1 AND deactivated_at IS NULL', [
        license.id,
      ]),
    ).toBe(2)
    await db.query('UPDATE plans SET max_activations = NULL WHERE id = $1', [license.plan_id])
  })

  it('SIGTERM: both servers drain and exit 0', async () => {
    expect(await Promise.all([stop(a), stop(b)])).toEqual([0, 0])
    for (const proc of [a, b]) {
      expect(proc.output()).toMatch(/(\[server\] |server )stopped/)
      expect(proc.output()).not.toMatch(UNCAUGHT)
    }
  }, 60_000)

  it('JOBS_WORKER=false: the server only queues; npm run jobs sends the email and stops on SIGTERM', async () => {
    const web = await startServer('web', { JOBS_WORKER: 'false' })
    await waitForReady(web)
    expect(web.output()).toContain('JOBS_WORKER=false')
    const email = 'worker@example.test'
    expect((await call(web, 'POST', '/api/auth/magic-link', { body: { email } })).status).toBe(200)
    // More than one tick of the queue's 10-second cron: nobody works the queue.
    await sleep(11_000)
    expect(mailsTo(email)).toHaveLength(0)
    expect(await pendingEmailJobs()).toBe(1)

    const worker = start('worker', ['dist/scripts/jobs.mjs'], { DATA_DIR: path.join(dir, 'data-worker') })
    await smtp
      .waitFor((message) => recipientsOf(message).includes(email), 90_000)
      .catch((error: Error) => {
        throw new Error(`${error.message}\nworker log:\n${worker.output()}`)
      })
    await settleEmails()
    expect(mailsTo(email)).toHaveLength(1)
    expect(worker.output()).toContain('working the queue')

    expect(await Promise.all([stop(worker), stop(web)])).toEqual([0, 0])
    expect(worker.output()).toContain('jobs worker stopped')
    expect(worker.output()).not.toMatch(UNCAUGHT)
  }, 180_000)
})

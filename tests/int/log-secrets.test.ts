/**
 * The production server's log through a whole customer journey: sign-up and confirmation, password
 * sign-in, a magic link, a password reset, a purchase through the processor stand-in (signed
 * webhooks), the license and its validation, an API key and a download through its signed link. Every
 * line must be JSON, none may hold a secret the journey used or produced, request lines carry their
 * request id (also inside Payload's route handlers and our endpoints, which Next's bundle runs), and
 * webhook and job lines carry the event's and the job's ids.
 *
 * Needs `npm run build` first: it runs when KIT_PRODUCTION_BUILD=1 (.ci/run sets it after the build).
 */
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import zlib from 'node:zlib'

import { type ParsedMail, simpleParser } from 'mailparser'
import { SMTPServer } from 'smtp-server'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { type DiscordStandIn, startDiscordStandIn } from '@starter-kit/standins/discord'
import { type ProcessorStandIn, startProcessorStandIn } from '@starter-kit/standins/processor'
import { jsonOrText, type UntypedJson } from '../support/net'
import { freePortIn } from '../support/ports'
import { type NodeProcess, spawnNode, waitForReady, BUILT_SERVER } from '../support/production-server'

const enabled = process.env.KIT_PRODUCTION_BUILD === '1'

const PRICE = 'price_standin_ultimate_lifetime'
const SETTINGS = {
  PAYLOAD_SECRET: `payload-secret-${crypto.randomBytes(24).toString('hex')}`,
  PAYMENT_SECRET_KEY: `sk_test_logs_${crypto.randomBytes(12).toString('hex')}`,
  PAYMENT_WEBHOOK_SECRET: `whsec_logs_${crypto.randomBytes(12).toString('hex')}`,
  REPO_ACCESS_TOKEN: `ghp_logs_${crypto.randomBytes(12).toString('hex')}`,
  DISCORD_BOT_TOKEN: `discord-bot-logs-${crypto.randomBytes(12).toString('hex')}`,
  DISCORD_CLIENT_SECRET: `discord-secret-logs-${crypto.randomBytes(12).toString('hex')}`,
  LICENSE_SIGNING_KEY: crypto
    .generateKeyPairSync('ed25519')
    .privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
}
const DISCORD_CLIENT_ID = '1600000000000000001'
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

type Line = Record<string, unknown> & { level: string; msg?: string; name?: string; requestId?: string }

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** A real SMTP server in this process: the journey's mailbox. */
const startMailbox = async (port: number) => {
  const messages: ParsedMail[] = []
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      simpleParser(stream)
        .then((parsed) => {
          messages.push(parsed)
          callback()
        })
        .catch(callback)
    },
  })
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
  /** The newest email to `to` whose subject starts so (the jobs worker sends every 2 s). */
  const newest = async (to: string, subject: string): Promise<ParsedMail> => {
    const deadline = Date.now() + 60_000
    while (Date.now() < deadline) {
      const found = messages
        .filter((message) => message.subject?.startsWith(subject) && JSON.stringify(message.to).includes(to))
        .at(-1)
      if (found) return found
      await sleep(200)
    }
    throw new Error(
      `no "${subject}" email to ${to} within 60 s (received: ${messages.map((message) => message.subject).join(', ')})`,
    )
  }
  /** The sign-in link of this type in that email. */
  const link = async (to: string, subject: string, type: string): Promise<URL> => {
    const text = (await newest(to, subject)).text ?? ''
    const found = new RegExp(`https?://\\S+type=${type}&token=[A-Za-z0-9_%-]+`).exec(text)?.[0]
    if (!found) throw new Error(`no ${type} link in "${subject}": ${text}`)
    return new URL(found)
  }
  return { newest, link, close: () => new Promise<void>((resolve) => server.close(() => resolve())) }
}

describe.runIf(enabled)('the production log through a whole journey', () => {
  let dataDir = ''
  let base = ''
  let server: NodeProcess
  let standIn: ProcessorStandIn
  let discord: DiscordStandIn
  let mailbox: Awaited<ReturnType<typeof startMailbox>>
  /** Every secret the journey used or was given. */
  const secrets = new Map<string, string>()
  const keep = (name: string, value: string | null | undefined) => {
    if (!value || value.length < 8) throw new Error(`${name}: no secret to keep (${value})`)
    secrets.set(name, value)
    return value
  }

  const call = async (
    method: string,
    url: string,
    options: { json?: unknown; form?: FormData; auth?: string; cookie?: string; requestId?: string } = {},
  ) => {
    const headers: Record<string, string> = { origin: base }
    if (options.json !== undefined) headers['content-type'] = 'application/json'
    if (options.auth) headers.authorization = options.auth
    if (options.cookie) headers.cookie = options.cookie
    if (options.requestId) headers['x-request-id'] = options.requestId
    const response = await fetch(url.startsWith('http') ? url : `${base}${url}`, {
      method,
      headers,
      body: options.form ?? (options.json === undefined ? undefined : JSON.stringify(options.json)),
      redirect: 'manual',
      signal: AbortSignal.timeout(30_000),
    })
    const body: UntypedJson = jsonOrText(await response.text())
    return { status: response.status, body, headers: response.headers, cookies: response.headers.getSetCookie() }
  }
  const sessionCookie = (cookies: string[]) =>
    /payload-token=([^;]+)/.exec(cookies.find((cookie) => cookie.startsWith('payload-token=')) ?? '')?.[1]
  const lines = (): Line[] =>
    server
      .output()
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as Line)

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kit-log-secrets-'))
    const ports: number[] = []
    while (ports.length < 4) {
      const port = await freePortIn(4110, 4129)
      if (!ports.includes(port)) ports.push(port)
    }
    const [port, smtpPort, processorPort, discordPort] = ports as [number, number, number, number]
    base = `http://127.0.0.1:${port}`
    mailbox = await startMailbox(smtpPort)
    standIn = await startProcessorStandIn({
      port: processorPort,
      secretKey: SETTINGS.PAYMENT_SECRET_KEY,
      webhookSecret: SETTINGS.PAYMENT_WEBHOOK_SECRET,
      webhookUrl: `${base}/api/webhooks/processor`,
    })
    discord = await startDiscordStandIn({
      port: discordPort,
      botToken: SETTINGS.DISCORD_BOT_TOKEN,
      clientId: DISCORD_CLIENT_ID,
      clientSecret: SETTINGS.DISCORD_CLIENT_SECRET,
    })
    for (const [name, value] of Object.entries(SETTINGS)) keep(name, value)
    // The PEM's key material, whatever line breaks a log might turn into.
    keep('LICENSE_SIGNING_KEY body', SETTINGS.LICENSE_SIGNING_KEY.split('\n')[1])
    server = spawnNode('server', [BUILT_SERVER], {
      PATH: process.env.PATH ?? '',
      HOME: os.tmpdir(),
      NODE_ENV: 'production',
      // Debug: the quietest lines must hold no secret either.
      LOG_LEVEL: 'debug',
      PORT: String(port),
      DATABASE_URL: process.env.DATABASE_URL!,
      SERVER_URL: base,
      SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
      PAYMENT_API_URL: standIn.url,
      PUBLIC_PAYMENT_PUBLISHABLE_KEY: 'pk_test_logs_0123456789',
      PUBLIC_PRICE_ID_ULTIMATE_LIFETIME: PRICE,
      REPO_OWNER: 'kit-org',
      REPO_NAME: 'starter-kit',
      REPO_API_URL: 'http://127.0.0.1:9',
      DISCORD_GUILD_ID: discord.guildId,
      DISCORD_CLIENT_ID,
      DISCORD_API_URL: discord.apiUrl,
      DISCORD_AUTHORIZE_URL: discord.authorizeUrl,
      DATA_DIR: path.join(dataDir, 'data'),
      MEDIA_DIR: path.join(dataDir, 'media'),
      CONTENT_IMPORT_ON_START: 'false',
      JOBS_RETRY_DELAY_MS: '1000',
      ...SETTINGS,
    })
    await waitForReady(server, base, 150_000)
  }, 180_000)

  afterAll(async () => {
    if (server && server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGKILL')
    await standIn?.close()
    await discord?.close()
    await mailbox?.close()
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true })
  })

  it('logs every step as JSON, with request, event and job ids, and never a secret', async () => {
    // Staff publish a release (the first user registers as admin).
    const admin = {
      email: 'owner@example.test',
      password: keep('admin password', `admin-password-${crypto.randomBytes(8).toString('hex')}`),
    }
    expect((await call('POST', '/api/users/first-register', { json: admin })).status).toBe(200)
    const adminLogin = await call('POST', '/api/users/login', { json: admin })
    const adminJwt = `JWT ${keep('admin JWT', adminLogin.body.token)}`
    const archive = zlib.gzipSync(crypto.randomBytes(4096))
    const form = new FormData()
    form.append(
      '_payload',
      JSON.stringify({ version: '1.0.0', publishedAt: new Date(Date.now() - 60_000).toISOString() }),
    )
    form.append('file', new Blob([archive], { type: 'application/gzip' }), 'starter-kit-1.0.0.tar.gz')
    expect((await call('POST', '/api/releases', { form, auth: adminJwt })).status).toBe(201)

    // Sign up and confirm the address: the link signs in.
    const email = `buyer-${Date.now()}@example.test`
    const password = keep('password', `first-password-${crypto.randomBytes(8).toString('hex')}`)
    const signedUp = await call('POST', '/api/auth/sign-up', { json: { email, password } })
    expect(signedUp.status).toBe(200)
    const signUpCookie = keep(
      'sign-up browser cookie',
      signedUp.cookies
        .find((cookie) => cookie.startsWith('kit-signup='))!
        .split(';')[0]!
        .split('=')[1],
    )
    const verify = await mailbox.link(email, 'Confirm your email address', 'verify')
    keep('verification token', verify.searchParams.get('token'))
    const verified = await call('GET', `${verify.pathname}${verify.search}`, { cookie: `kit-signup=${signUpCookie}` })
    expect(verified.status).toBe(302)
    keep('session after confirmation', sessionCookie(verified.cookies))

    // A wrong password, with our own request id: Payload's route handler logs the refusal.
    const wrong = await call('POST', '/api/users/login', {
      json: { email, password: 'not-the-password-0' },
      requestId: 'journey-wrong-password',
    })
    expect(wrong.status).toBe(401)
    expect(wrong.headers.get('x-request-id')).toBe('journey-wrong-password')
    const signedIn = await call('POST', '/api/users/login', { json: { email, password } })
    expect(signedIn.status).toBe(200)
    keep('session JWT', signedIn.body.token)

    // A magic link.
    expect((await call('POST', '/api/auth/magic-link', { json: { email } })).status).toBe(200)
    const magic = await mailbox.link(email, 'Your sign-in link', 'magiclink')
    keep('magic-link token', magic.searchParams.get('token'))
    const magicSession = await call('GET', `${magic.pathname}${magic.search}`)
    expect(magicSession.status).toBe(302)
    keep('session from the magic link', sessionCookie(magicSession.cookies))

    // A password reset: the emailed link, then the new password.
    expect((await call('POST', '/api/auth/forgot-password', { json: { email } })).status).toBe(200)
    const recovery = await mailbox.link(email, 'Reset your password', 'recovery')
    const resetToken = keep('reset token', recovery.searchParams.get('token'))
    expect((await call('GET', `${recovery.pathname}${recovery.search}`)).status).toBe(302)
    const newPassword = keep('new password', `second-password-${crypto.randomBytes(8).toString('hex')}`)
    const reset = await call('POST', '/api/users/reset-password', {
      json: { token: resetToken, password: newPassword },
    })
    expect(reset.status).toBe(200)
    if (reset.body.token) keep('session after the reset', reset.body.token)
    const jwt = `JWT ${keep('session JWT after the reset', (await call('POST', '/api/users/login', { json: { email, password: newPassword } })).body.token)}`

    // Buy Ultimate through the processor stand-in: its signed webhooks make the license.
    const checkout = await call('POST', '/api/checkout_sessions', { json: { priceId: PRICE }, auth: jwt })
    expect(checkout.status).toBe(200)
    const events = await standIn.pay(checkout.body.id, { email })
    const deliveries = events.map(
      (event) =>
        standIn
          .events()
          .find((record) => record.event.id === event.id)
          ?.deliveries.at(-1)?.status,
    )
    expect(deliveries.every((status) => status === 200)).toBe(true)
    const licenses = await call('GET', '/api/licenses?depth=0', { auth: jwt })
    expect(licenses.body.docs).toHaveLength(1)
    const licenseKey = keep('license key', licenses.body.docs[0].key)

    // The app validates the license.
    const validation = await call('POST', '/api/licenses/validate', { json: { key: licenseKey, fingerprint: 'app-1' } })
    expect(validation.body).toMatchObject({ valid: true, code: 'VALID' })
    keep('license certificate', validation.body.certificate)

    // An API key, used to get a signed download link, and the download.
    const created = await call('POST', '/api/account/api-keys', { json: { name: 'deploy' }, auth: jwt })
    expect(created.status).toBe(201)
    const apiKey = keep('API key', created.body.key)
    const link = await call('GET', '/api/download', { auth: `Bearer ${apiKey}` })
    expect(link.status).toBe(200)
    const signed = new URL(link.body.url)
    keep('download signature', signed.searchParams.get('signature'))
    const file = await fetch(`${base}${signed.pathname}${signed.search}`)
    expect(Buffer.from(await file.arrayBuffer())).toEqual(archive)

    // The plan gives a Discord role; the buyer connects Discord (the stand-in's consent), and gets it.
    const plans = await call('GET', '/api/plans?where[slug][equals]=ultimate&depth=0', { auth: adminJwt })
    const roleId = discord.addRole({ name: 'Ultimate buyers', position: 3 }).id
    expect(
      (await call('PATCH', `/api/plans/${plans.body.docs[0].id}`, { json: { discordRoleId: roleId }, auth: adminJwt }))
        .status,
    ).toBe(200)
    const connect = await call('GET', '/api/community/discord/connect', { auth: jwt })
    expect(connect.status).toBe(302)
    const back = new URL(
      await discord.approve(connect.headers.get('location')!, discord.addUser({ username: 'log-buyer' }).id),
    )
    keep('Discord state', back.searchParams.get('state'))
    keep('Discord authorization code', back.searchParams.get('code'))
    const joined = await call('GET', `${back.pathname}${back.search}`, { cookie: connect.cookies[0]!.split(';')[0] })
    expect(joined.headers.get('location')).toContain('community=joined')
    keep('Discord access token', discord.issuedAccessTokens.at(-1))
    expect(discord.requests.some((request) => request.path.includes('/roles/') && request.status === 204)).toBe(true)

    // The license email, sent by the jobs worker (its job's line below).
    expect((await mailbox.newest(email, 'Your Starter Kit')).text).toContain(licenseKey)

    server.child.kill('SIGTERM')
    expect(await Promise.race([server.exited, sleep(30_000).then(() => 'timeout')])).toBe(0)

    // Every line is JSON (a line that is not fails the parse with its text).
    const all = lines()
    expect(all.length).toBeGreaterThan(20)
    expect(all.some((line) => line.msg === 'server stopped')).toBe(true)

    // No secret anywhere: not in a message, a field or an error.
    const leaks = [...secrets].filter(([, value]) => server.output().includes(value)).map(([name]) => name)
    expect(leaks).toEqual([])

    // Each request's access line has its id; ours was kept, the others are UUIDs.
    const access = all.filter((line) => line.name === 'http' && line.msg === 'request')
    expect(access.length).toBeGreaterThan(15)
    for (const line of access)
      expect(line.requestId === 'journey-wrong-password' || UUID.test(line.requestId ?? '')).toBe(true)
    expect(access.map((line) => line.path)).toEqual(
      expect.arrayContaining(['/api/webhooks/processor', '/auth/callback', '/api/licenses/validate']),
    )
    expect(access.filter((line) => String(line.path).includes('?'))).toEqual([])

    // Inside Next's bundle: Payload's own line for the wrong password carries the request's id.
    const refusal = all.filter((line) => line.requestId === 'journey-wrong-password' && line.name === 'payload')
    expect(refusal.length).toBeGreaterThan(0)
    // At info, as payload.config.ts's loggingLevels says: Payload's class names hold in the build (Payload
    // stays unbundled and unminified); minified, its AuthenticationError would be named "o" and logged at error.
    expect(refusal.map((line) => line.level)).toEqual(refusal.map(() => 'info'))

    // Webhook lines: the event's id and type, and the id of the request that delivered it.
    const webhooks = all.filter((line) => line.msg === 'processor event received')
    expect(webhooks.map((line) => line.eventId).sort()).toEqual(events.map((event) => event.id).sort())
    const webhookRequests = new Set(
      access.filter((line) => line.path === '/api/webhooks/processor').map((line) => line.requestId),
    )
    for (const line of webhooks) {
      expect(line.eventType).toEqual(expect.any(String))
      expect(webhookRequests.has(line.requestId)).toBe(true)
    }

    // Job lines: the job's id and task.
    const jobs = all.filter((line) => line.msg === 'job task completed')
    expect(jobs.filter((line) => line.task === 'sendEmail').length).toBeGreaterThanOrEqual(3)
    for (const line of jobs) expect(line.jobId).toEqual(expect.anything())
  }, 240_000)
})

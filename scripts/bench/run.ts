/**
 * `npm run bench`: first a newcomer's `npm install` and first `/admin` on a fresh clone (newcomer.ts), then
 * the production server against a scratch PostgreSQL database, with the stand-ins in a
 * process of their own, driven by autocannon path by path. Prints req/s, p50, p99 and the ratio to the
 * floor (Payload's own authenticated read), the server's memory, checks that webhook effects happen
 * exactly once, then runs launch day (launch.ts: a burst of purchases while visitors load the home
 * page) and Lighthouse on the public pages with the server otherwise idle (lighthouse.ts), prints every
 * target of issues 11, 26 and 42 as met or not, and writes it all to docs/PERFORMANCE.md. See OPERATIONS.md
 * "Benchmark".
 */
import { spawnSync } from 'node:child_process'
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

import pg from 'pg'

import { BUILT_SERVER, startCommand, startNodeArgs } from '../../src/process/start-command'
import {
  checkExactlyOnce as checkOnce,
  countEffects,
  deliverAll,
  deliveryHeaders,
  type Effects,
  prepareEvents,
  type PreparedEvent,
  WEBHOOK_PATH,
} from './events'
import { clientAddress } from './http'
import { drainEmailQueue, launchDay, type LaunchOutcome } from './launch'
import { type LighthouseOutcome, lighthouseChecks, lighthouseNotes, lighthouseTable, runLighthouse } from './lighthouse'
import { type Measured, measure, ms, type Target, warm, WARMUP_SECONDS } from './load'
import { measureNewcomer, type NewcomerOutcome } from './newcomer'
import { type Child, logSays, logTail, requireFreePorts, ROOT, startNode, stopGroup, waitFor } from './processes'
import { type Check, checkLine, notes, render, type Row, type Section, table, writePerformance } from './report'
import { groupCpuSeconds, sampleRss } from './rss'
import { RELEASE_VERSION, seed, type Seeded } from './seed'
import {
  BROWSER_HEADERS,
  CODE_HOST,
  controlUrl,
  LIGHTHOUSE,
  PORTS,
  PRICES,
  PROCESSOR,
  SETTINGS,
  serverUrl,
} from './settings'
import { installBenchTools } from './tools'

/**
 * Keys and client addresses are seeded so that these rates stay under the service's rate limits: API keys
 * for the download path, license keys and addresses for validation, the fastest path (about 2,100 req/s
 * on this machine on 2026-11-29, when 1,000 a second's worth of license keys left 59% of it answered 429).
 */
const CAPACITY_PER_SECOND = 1000
const VALIDATIONS_PER_SECOND = 3000
const CLIENT_ADDRESSES = 400

const log = (line: string) => console.info(`[bench] ${line}`)

/** Targets (issues 11, 26 and 42) against the floor. */
const TARGETS = {
  /** Download and validation: at least this share of the floor's req/s, p99 at most `maxP99Ms`. */
  hotPathRatio: 0.8,
  maxP99Ms: 100,
  /** The unique webhook (issue 42; 0.5 in issue 11). */
  webhookRatio: 1.0,
  /** The server process's own resident memory (issue 42; 300 MiB for its process group in issue 11). */
  maxRssMiB: 256,
  /** The anonymous home page and /pricing, served from a cache. */
  cachedPageRatio: 3,
  /** A newcomer (issue 42): `npm install` on a fresh clone with an empty npm cache, then the first `/admin`. */
  newcomerInstallSeconds: 60,
  newcomerFirstAdminSeconds: 45,
}

/**
 * BENCH_ONLY=download,webhook measures the floor and only the paths whose names contain one of the
 * words (for profiling one path); such a run prints its table but does not write docs/PERFORMANCE.md.
 */
const only = (process.env.BENCH_ONLY ?? '')
  .split(',')
  .map((word) => word.trim().toLowerCase())
  .filter(Boolean)
const selected = (name: string) => only.length === 0 || only.some((word) => name.toLowerCase().includes(word))
const startedAt = Date.now()
const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kit-bench-'))
const children: Child[] = []

const database = (() => {
  const url = new URL(SETTINGS.databaseUrl)
  const name = url.pathname.slice(1)
  if (!/^[A-Za-z0-9_]+$/.test(name))
    throw new Error(`BENCH_DATABASE_URL must name a plain database (letters, digits, _): "${name}"`)
  url.pathname = '/postgres'
  return { name, url: SETTINGS.databaseUrl, maintenanceUrl: url.toString() }
})()

const onMaintenance = async (sql: string) => {
  const client = new pg.Client({ connectionString: database.maintenanceUrl })
  await client.connect()
  try {
    await client.query(sql)
  } finally {
    await client.end()
  }
}

/** What `npm start` runs, built by `npm run build`. */

/** `npm run build` unless .next and dist/server hold a production build; says which build runs. */
const ensureBuild = (): string => {
  const buildId = path.join(ROOT, '.next/BUILD_ID')
  if (fs.existsSync(buildId) && fs.existsSync(path.join(ROOT, BUILT_SERVER)) && !SETTINGS.forceBuild) {
    const built = fs.statSync(buildId).mtime.toISOString()
    return `production build ${fs.readFileSync(buildId, 'utf8').trim()} found in .next (built ${built})`
  }
  log(
    SETTINGS.forceBuild
      ? 'BENCH_BUILD=1: npm run build'
      : 'no production build in .next and dist/server: npm run build',
  )
  const build = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' })
  if (build.status !== 0) throw new Error(`npm run build failed (exit ${build.status})`)
  return `production build ${fs.readFileSync(buildId, 'utf8').trim()} made by this run`
}

/** Only what a shell needs, in production mode; every setting of the service is explicit below. */
const baseEnv = (): NodeJS.ProcessEnv => ({
  ...Object.fromEntries(
    ['PATH', 'HOME', 'LANG', 'TMPDIR', 'TERM'].flatMap((name) =>
      process.env[name] ? [[name, process.env[name]]] : [],
    ),
  ),
  NODE_ENV: 'production',
})

const serverEnv = (): NodeJS.ProcessEnv => {
  const dir = (name: string) => {
    const folder = path.join(workDir, name)
    fs.mkdirSync(folder, { recursive: true })
    return folder
  }
  return {
    ...baseEnv(),
    PORT: String(PORTS.server),
    SERVER_URL: `http://localhost:${PORTS.server}`,
    DATABASE_URL: database.url,
    PAYLOAD_SECRET: crypto.randomBytes(32).toString('hex'),
    SMTP_URL: `smtp://127.0.0.1:${PORTS.smtp}`,
    PAYMENT_SECRET_KEY: PROCESSOR.secretKey,
    PAYMENT_WEBHOOK_SECRET: PROCESSOR.webhookSecret,
    PUBLIC_PAYMENT_PUBLISHABLE_KEY: PROCESSOR.publishableKey,
    PAYMENT_API_URL: `http://127.0.0.1:${PORTS.processor}`,
    PUBLIC_PRICE_ID_STANDARD_LIFETIME: PRICES.standardLifetime,
    PUBLIC_PRICE_ID_ULTIMATE_LIFETIME: PRICES.ultimateLifetime,
    PUBLIC_PRICE_ID_PRO_MONTHLY: PRICES.proMonthly,
    PUBLIC_PRICE_ID_PRO_YEARLY: PRICES.proYearly,
    REPO_ACCESS_TOKEN: CODE_HOST.token,
    REPO_OWNER: CODE_HOST.owner,
    REPO_NAME: CODE_HOST.repo,
    REPO_API_URL: `http://127.0.0.1:${PORTS.codeHost}`,
    LICENSE_SIGNING_KEY: crypto
      .generateKeyPairSync('ed25519')
      .privateKey.export({ type: 'pkcs8', format: 'pem' })
      .toString(),
    DATA_DIR: dir('data'),
    MEDIA_DIR: dir('media'),
    TEMPLATES_DIR: dir('templates'),
    RELEASES_DIR: dir('releases'),
    // The driver is the proxy in front of many clients (X-Forwarded-For), as a load balancer would be.
    TRUSTED_PROXIES: '127.0.0.1',
    // BENCH_JOBS_WORKER=false: the queue is worked by a process of its own (`npm run jobs`), as a
    // deployment that keeps the emails off the web process runs (docs/DEPLOYMENT.md, "Jobs").
    ...(process.env.BENCH_JOBS_WORKER ? { JOBS_WORKER: process.env.BENCH_JOBS_WORKER } : {}),
  }
}

const answers = (url: string) => async () => (await fetch(url)).ok

let cleaned = false
const cleanup = async (keepLogs: boolean) => {
  if (cleaned) return
  cleaned = true
  for (const child of children.reverse()) await stopGroup(child)
  await onMaintenance(`DROP DATABASE IF EXISTS "${database.name}" WITH (FORCE)`).catch((error: unknown) =>
    log(`could not drop ${database.name}: ${(error as Error).message}`),
  )
  if (keepLogs) log(`logs kept in ${workDir}`)
  else fs.rmSync(workDir, { recursive: true, force: true })
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    log(`${signal}: stopping`)
    void cleanup(true).finally(() => process.exit(130))
  })
}

const targets = (seeded: Seeded): Target[] => {
  const jwt = { authorization: seeded.customerJwt }
  const json = { 'content-type': 'application/json' }
  return [
    { name: 'floor: `GET /api/users/me` (JWT)', method: 'GET', path: '/api/users/me', headers: jwt },
    {
      name: `\`GET /api/download?version=${RELEASE_VERSION}\` (JWT)`,
      method: 'GET',
      path: `/api/download?version=${RELEASE_VERSION}`,
      headers: jwt,
    },
    {
      name: `\`GET /api/download?version=${RELEASE_VERSION}\` (API key)`,
      method: 'GET',
      path: `/api/download?version=${RELEASE_VERSION}`,
      vary: (n) => ({ headers: { authorization: `Bearer ${seeded.apiKeys[n % seeded.apiKeys.length]}` } }),
    },
    {
      name: '`POST /api/licenses/validate` (valid key)',
      method: 'POST',
      path: '/api/licenses/validate',
      headers: json,
      vary: (n) => ({
        body: JSON.stringify({ key: seeded.licenseKeys[n % seeded.licenseKeys.length] }),
        headers: { 'x-forwarded-for': clientAddress(n % CLIENT_ADDRESSES) },
      }),
    },
    // The storefront as a visitor sees it: no cookie, no authorization.
    // As a browser asks: the page leaves compressed (src/server/host.ts), and that costs the server too.
    { name: 'page `/` (anonymous)', method: 'GET', path: '/', headers: BROWSER_HEADERS },
    { name: 'page `/pricing` (anonymous)', method: 'GET', path: '/pricing', headers: BROWSER_HEADERS },
    { name: `page \`${seeded.blogPath}\``, method: 'GET', path: seeded.blogPath },
  ]
}

const signed = (event: PreparedEvent) => ({ body: event.body, headers: deliveryHeaders(event.body) })

const checkExactlyOnce = (stage: string, effects: Effects, expected: number) => checkOnce(stage, effects, expected, log)

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * Before Lighthouse: the email queue empty and the server's process group using at most a tenth of a
 * core over two seconds (the jobs worker's turns are all that is left), waiting at most a minute for it.
 */
const waitForIdleServer = async (db: pg.Client, pgid: number): Promise<string> => {
  const drained = await drainEmailQueue(db, log, 600)
  const deadline = Date.now() + 60_000
  let share = Number.POSITIVE_INFINITY
  while (Date.now() < deadline) {
    const before = groupCpuSeconds(pgid)
    await sleep(2000)
    share = (groupCpuSeconds(pgid) - before) / 2
    if (share <= 0.1) break
  }
  const queue = drained.left === 0 ? 'its email queue empty' : `${drained.left} email jobs still queued`
  return `the server otherwise idle (${queue}; ${(share * 100).toFixed(0)}% of a core in the 2 s before)`
}

/** The issues' targets against this run's rows; paths BENCH_ONLY left out are "not measured". */
const targetChecks = (rows: Row[], rssMaxMiB: number, launched: boolean): Check[] => {
  const row = (name: string) => rows.find((candidate) => candidate.name.includes(name))
  const hotPath = (label: string, name: string): Check => {
    const found = row(name)
    const target = `${label} at least ${TARGETS.hotPathRatio} of the floor, p99 at most ${TARGETS.maxP99Ms} ms`
    if (!found) return { target, measured: 'not measured (BENCH_ONLY)', met: null }
    const failed = found.non2xx + found.errors
    return {
      target,
      measured: `${found.ratio.toFixed(2)}, p99 ${ms(found.p99)} ms${failed > 0 ? `, ${failed} failed` : ''}`,
      met: found.ratio >= TARGETS.hotPathRatio && found.p99 <= TARGETS.maxP99Ms && failed === 0,
    }
  }
  const ratioOnly = (label: string, name: string, minimum: number): Check => {
    const found = row(name)
    const target = `${label} at least ${minimum} of the floor`
    if (!found) return { target, measured: 'not measured (BENCH_ONLY)', met: null }
    const failed = found.non2xx + found.errors
    return {
      target,
      measured: `${found.ratio.toFixed(2)}${failed > 0 ? `, ${failed} failed` : ''}`,
      met: found.ratio >= minimum && failed === 0,
    }
  }
  const selectedAll = only.length === 0
  return [
    hotPath('download with a session (issue 11):', `version=${RELEASE_VERSION}\` (JWT)`),
    hotPath('download with an API key (issue 11):', `version=${RELEASE_VERSION}\` (API key)`),
    hotPath('license validation (issue 11):', '`POST /api/licenses/validate`'),
    ratioOnly('unique webhook (issue 42):', 'unique signed `checkout.session.completed`', TARGETS.webhookRatio),
    {
      target: `the server process's own RSS at most ${TARGETS.maxRssMiB} MiB (issue 42)`,
      measured: `max ${rssMaxMiB.toFixed(0)} MiB${selectedAll ? '' : ' (BENCH_ONLY: not every path ran)'}${launched ? ', launch day included' : ''}`,
      met: rssMaxMiB <= TARGETS.maxRssMiB,
    },
    ratioOnly('anonymous home page `/` from a cache (issue 26):', 'page `/` (anonymous)', TARGETS.cachedPageRatio),
    ratioOnly('anonymous `/pricing` from a cache (issue 26):', 'page `/pricing` (anonymous)', TARGETS.cachedPageRatio),
  ]
}

/** The newcomer's two figures against their targets; a failed step is a target not met. */
const newcomerChecks = (outcome: NewcomerOutcome): Check[] => {
  const check = (label: string, seconds: number | null, limit: number): Check => ({
    target: `${label} at most ${limit} s (issue 42)`,
    measured:
      seconds === null ? `not measured: ${outcome.error?.split('\n')[0] ?? 'failed'}` : `${seconds.toFixed(1)} s`,
    met: seconds !== null && seconds <= limit && outcome.error === null,
  })
  return [
    check(
      'a newcomer: `npm install` on a fresh clone, empty npm cache,',
      outcome.installSeconds,
      TARGETS.newcomerInstallSeconds,
    ),
    check(
      'a newcomer: the first `/admin` answer of `npm run dev`',
      outcome.firstAdminSeconds,
      TARGETS.newcomerFirstAdminSeconds,
    ),
  ]
}

const main = async () => {
  const loadBefore = os.loadavg()
  await requireFreePorts(Object.values(PORTS))
  installBenchTools(log)
  const build = ensureBuild()
  // First, with the machine otherwise idle: a newcomer's install and first /admin (newcomer.ts).
  const newcomer: NewcomerOutcome | null = selected('newcomer') ? await measureNewcomer(log) : null
  const runSeconds = SETTINGS.seconds + WARMUP_SECONDS + SETTINGS.firstWarmupSeconds
  log(`scratch database ${database.name} (dropped and recreated), work folder ${workDir}`)
  await onMaintenance(`DROP DATABASE IF EXISTS "${database.name}" WITH (FORCE)`)
  await onMaintenance(`CREATE DATABASE "${database.name}"`)
  const db = new pg.Client({ connectionString: database.url })
  // A dropped connection must fail the next query (and the run), not crash the process before cleanup.
  db.on('error', (error) => log(`database connection lost: ${error.message}`))

  const env = serverEnv()
  const standIns = startNode(
    'stand-ins',
    'scripts/bench/standins.ts',
    { ...baseEnv(), BENCH_PORT: String(PORTS.server) },
    path.join(workDir, 'standins.log'),
  )
  children.push(standIns)
  await waitFor(standIns, logSays(standIns, 'ready'), 60_000)
  log('starting the production server')
  const serverStart = Date.now()
  // BENCH_SERVER_NODE_OPTIONS: Node flags for the server alone (a heap limit, --cpu-prof), for experiments.
  const nodeArgs = (process.env.BENCH_SERVER_NODE_OPTIONS ?? '').split(/\s+/).filter(Boolean)
  const server = startNode('server', BUILT_SERVER, env, path.join(workDir, 'server.log'), nodeArgs)
  children.push(server)
  await waitFor(server, logSays(server, 'server ready on'), 300_000)
  await waitFor(server, answers(`${serverUrl}/readyz`), 30_000)
  if (env.JOBS_WORKER === 'false') {
    // Not counted in the server's RSS: a process of its own, as in production.
    const jobs = startNode(
      'jobs',
      'dist/scripts/jobs.mjs',
      { ...env, NODE_ENV: 'production' },
      path.join(workDir, 'jobs.log'),
    )
    children.push(jobs)
    await waitFor(jobs, logSays(jobs, 'working the queue'), 120_000)
  }
  const startupSeconds = (Date.now() - serverStart) / 1000
  log(`server ready in ${startupSeconds.toFixed(1)} s`)
  const rss = sampleRss(server.pgid)
  const rssAfterStart = rss.mark()
  await db.connect()
  const postgres =
    (await db.query<{ server_version: string }>('SHOW server_version')).rows[0]?.server_version ?? 'unknown'

  // Enough API keys (60 a minute each), license keys (60 validations in 10 minutes each) and addresses (120
  // validations in 10 minutes each) for the capacities.
  const apiKeysNeeded = Math.ceil((CAPACITY_PER_SECOND * Math.min(runSeconds, 60)) / 60)
  const seedStart = Date.now()
  const seeded = await seed({
    customers: Math.ceil(apiKeysNeeded / 10),
    licenseKeys: Math.ceil((VALIDATIONS_PER_SECOND * runSeconds) / 60),
  })
  log(
    `seeded ${seeded.apiKeys.length} API keys, ${seeded.licenseKeys.length} licenses, release ${RELEASE_VERSION} in ${((Date.now() - seedStart) / 1000).toFixed(1)} s`,
  )

  const measured: { result: Measured; rssMiB: number }[] = []
  const run = async (target: Target) => {
    rss.mark()
    log(`${target.name}: ${WARMUP_SECONDS} s warm-up, ${SETTINGS.seconds} s measured`)
    const result = await measure(target)
    measured.push({ result, rssMiB: rss.mark() })
    log(
      `  ${result.requestsPerSecond.toFixed(0)} req/s, p50 ${ms(result.p50)} ms, p99 ${ms(result.p99)} ms, non-2xx ${result.non2xx}, errors ${result.errors}`,
    )
    return result
  }

  const sessionPaths = targets(seeded)
  log(`warming up every path for ${SETTINGS.firstWarmupSeconds} s`)
  for (const target of sessionPaths.filter((candidate, index) => index === 0 || selected(candidate.name)))
    await warm(target, SETTINGS.firstWarmupSeconds)
  const [floorTarget, ...others] = sessionPaths
  const floor = await run(floorTarget as Target)
  for (const target of others.filter((candidate) => selected(candidate.name))) await run(target)

  // The webhook paths: unique events, then the same again; the exactly-once line for the notes.
  const webhook = async (): Promise<string> => {
    const eventCount =
      SETTINGS.events ??
      Math.min(20_000, Math.max(500, Math.ceil(2 * floor.requestsPerSecond * (SETTINGS.seconds + WARMUP_SECONDS))))
    const prepStart = Date.now()
    const events = await prepareEvents(eventCount)
    log(`prepared ${events.length} paid checkouts' events in ${((Date.now() - prepStart) / 1000).toFixed(1)} s`)
    let used = 0
    await run({
      name: 'unique signed `checkout.session.completed`',
      method: 'POST',
      path: WEBHOOK_PATH,
      vary: (n) => {
        used = Math.max(used, Math.min(n + 1, events.length))
        return { ...signed(events[Math.min(n, events.length - 1)] as PreparedEvent), last: n >= events.length - 1 }
      },
    })
    const delivered = events.slice(0, used)
    // Requests cut off when the run stopped may or may not have been applied: deliver every one again.
    await deliverAll(delivered)
    const afterUnique = await countEffects(db, events)
    checkExactlyOnce('after the unique events', afterUnique, delivered.length)
    await run({
      name: 'the same events again (duplicates)',
      method: 'POST',
      path: WEBHOOK_PATH,
      vary: (n) => signed(delivered[n % delivered.length] as PreparedEvent),
    })
    checkExactlyOnce('after the duplicates', await countEffects(db, events), delivered.length)
    return `Exactly-once: ${delivered.length} distinct events delivered (of ${events.length} prepared; each sent once more after its run, then in rotation by the duplicates run) -> ${afterUnique.purchases} one-time purchases and ${afterUnique.licenses} licenses, unchanged after the duplicates.`
  }
  const exactlyOnce = selected('webhook') ? await webhook() : null
  const floorAgain = await run({ ...(floorTarget as Target), name: 'floor again, last' })

  // Launch day: a burst of purchases while visitors load the home page (after the load runs, the email queue emptied first).
  const launch: LaunchOutcome | null = selected('launch') ? await launchDay({ db, log, rss }) : null
  const memory = rss.stop()

  // Lighthouse: the server otherwise idle (its email queue empty, its CPU quiet), one page at a time.
  const lighthousePages = ['/', '/pricing', '/blog', seeded.blogPath, '/changelog', '/sign-in', '/sign-up']
  let lighthouse: LighthouseOutcome | null = null
  let serverIdle = ''
  if (selected('lighthouse')) {
    serverIdle = await waitForIdleServer(db, server.pgid)
    log(
      `Lighthouse on ${lighthousePages.length} pages, ${LIGHTHOUSE.runs} mobile and ${LIGHTHOUSE.desktopRuns} desktop run(s) each (${serverIdle})`,
    )
    lighthouse = await runLighthouse(`http://localhost:${PORTS.server}`, lighthousePages, log)
  }

  const mails = ((await (await fetch(`${controlUrl}/mail`)).json()) as { received: number }).received
  await db.end()

  // The faster floor run: neither a slow start nor a neighbour's burst during one of them flatters the other paths.
  const floorRate = Math.max(floor.requestsPerSecond, floorAgain.requestsPerSecond)
  const toRow = ({ result, rssMiB }: { result: Measured; rssMiB: number }): Row => ({
    ...result,
    rssMiB,
    ratio: result.requestsPerSecond / floorRate,
  })
  const rows: Row[] = measured.map(toRow)
  const launchRows: Row[] = launch ? launch.rows.map(toRow) : []
  const checks = [
    ...targetChecks(rows, memory.maxMiB, launch !== null),
    ...(launch?.checks ?? []),
    ...(lighthouse ? lighthouseChecks(lighthouse, lighthousePages) : []),
    ...(newcomer ? newcomerChecks(newcomer) : []),
  ]
  const extra = [
    ...checks.map((check) => `Target ${checkLine(check)}`),
    ...notes(rows),
    `Server RSS (the server process's own, read from /proc every second; the table's column): ${rssAfterStart.toFixed(0)} MiB after start-up, max ${memory.maxMiB.toFixed(0)} MiB${launch ? ' (launch day included)' : ''}, ${memory.endMiB.toFixed(0)} MiB at the end; its whole process group (with any process it started) peaked at ${memory.groupMaxMiB.toFixed(0)} MiB.`,
    ...(exactlyOnce ? [exactlyOnce] : []),
    `Start-up: the server answered /readyz ${startupSeconds.toFixed(1)} s after it was launched (migrations on an empty database, plans, content import).`,
    `Emails received by the SMTP sink by the end: ${mails} (license emails go out through the jobs queue, also during the later runs).`,
  ]
  const sections: Section[] = []
  if (newcomer) sections.push({ title: 'A newcomer', lines: newcomer.notes.map((line) => `- ${line}`) })
  if (launch)
    sections.push({
      title: 'Launch day',
      lines: [table(launchRows), '', ...[...launch.notes, ...notes(launchRows)].map((line) => `- ${line}`)],
    })
  if (lighthouse) {
    sections.push({
      title: 'Lighthouse (mobile)',
      lines: lighthouse.pages.length > 0 ? [lighthouseTable(lighthouse.pages, 'mobile')] : [],
    })
    sections.push({
      title: 'Lighthouse (desktop)',
      lines: [
        ...(lighthouse.pages.length > 0 ? [lighthouseTable(lighthouse.pages, 'desktop'), ''] : []),
        ...lighthouseNotes(lighthouse, serverIdle).map((line) => `- ${line}`),
      ],
    })
  }
  const elapsed = (Date.now() - startedAt) / 1000
  // The BENCH_* settings of this run, so the line can be repeated (a database password is not written).
  const overrides = Object.entries(process.env)
    .filter(([name]) => name.startsWith('BENCH_'))
    .map(([name, value]) => `${name}=${(value ?? '').replace(/:[^:@/]+@/, ':***@')}`)
  const command = [...overrides, 'npm run bench'].join(' ')
  const generated = render(
    rows,
    [...extra, `The whole run took ${elapsed.toFixed(0)} s.`],
    {
      command,
      date: new Date(startedAt),
      build,
      postgres,
      loadBefore,
      settings: `${SETTINGS.connections} connections; every path warmed up for ${SETTINGS.firstWarmupSeconds} s first, then per path ${WARMUP_SECONDS} s warm-up and ${SETTINGS.seconds} s measured, one run; ratios against the faster of the two floor runs; the floor's auth (JWT of an Ultimate customer) on every session path; API keys and license keys rotate over ${seeded.apiKeys.length} and ${seeded.licenseKeys.length} keys and ${CLIENT_ADDRESSES} client addresses (X-Forwarded-For from a trusted proxy) to stay under the per-key and per-address rate limits; the server runs as \`npm start\` runs it: \`${Object.entries(
        startCommand(ROOT).env,
      )
        .map(([name, value]) => `${name}=${value} `)
        .join('')}node ${[...startNodeArgs(ROOT), ...nodeArgs].join(' ')} ${BUILT_SERVER}\``,
    },
    sections,
  )
  console.info(`\n${table(rows)}\n`)
  for (const line of extra) console.info(`- ${line}`)
  for (const section of sections) console.info(`\n### ${section.title}\n\n${section.lines.join('\n')}`)
  console.info(`\nTargets:\n${checks.map((check) => `  ${checkLine(check)}`).join('\n')}\n`)
  if (only.length > 0) log(`BENCH_ONLY is set: docs/PERFORMANCE.md is left as it is (${elapsed.toFixed(0)} s)`)
  else log(`wrote ${path.relative(ROOT, writePerformance(generated))} (${elapsed.toFixed(0)} s)`)
}

try {
  await main()
  // BENCH_KEEP_LOGS=1 keeps the server's and stand-ins' logs (e.g. with --trace-gc) after a passing run.
  await cleanup(process.env.BENCH_KEEP_LOGS === '1')
} catch (error) {
  console.error(`[bench] FAILED: ${error instanceof Error ? error.message : String(error)}`)
  const server = children.find((child) => child.name === 'server')
  if (server) console.error(`--- server log (tail)\n${logTail(server)}`)
  await cleanup(true)
  // The RSS sampler or a half-open connection would keep the process alive.
  process.exit(1)
}

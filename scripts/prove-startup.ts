/**
 * The start-up proof (issue 11): `npm run migrate` on N fresh databases, then N start-ups of the
 * production server (`npm start`, each on one of those migrated databases), each of which must answer
 * /readyz 200 and then exit 0 on SIGTERM. Failures are listed with their exit codes and log tails; the
 * full logs stay in a temporary folder. Exits 1 on any failure.
 *
 * Why: Node 20's ESM loader could deadlock on Lexical's top-level `await import()` entries (exit 13,
 * nothing printed, about 1 run in 3); every entry point now passes `--conditions`, and this shows it holds.
 *
 *   node_modules/.bin/tsx scripts/prove-startup.ts [--migrations 50] [--startups 50] [--parallel 2]
 *
 * PROVE_DATABASE_URL: the PostgreSQL server's maintenance database (default the machine's, trust auth);
 * scratch databases `kit_prove_<pid>_<n>` are created there and dropped afterwards. PROVE_PORT: the first
 * port of the servers (default 4101; one per parallel slot). Builds first when `.next` holds no build.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import crypto from 'node:crypto'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'

import pg from 'pg'

const root = path.resolve(import.meta.dirname, '..')
const { values: args } = parseArgs({
  options: {
    migrations: { type: 'string', default: '50' },
    startups: { type: 'string', default: '50' },
    parallel: { type: 'string', default: '2' },
  },
})
const count = (name: keyof typeof args) => {
  const value = Number(args[name])
  if (!Number.isInteger(value) || value < 0) throw new Error(`--${name} must be a whole number, got ${args[name]}`)
  return value
}
const MIGRATIONS = count('migrations')
const STARTUPS = count('startups')
const PARALLEL = Math.max(1, count('parallel'))
const ADMIN_URL = process.env.PROVE_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const FIRST_PORT = Number(process.env.PROVE_PORT ?? 4101)
const MIGRATE_TIMEOUT_MS = 120_000
const READY_TIMEOUT_MS = 120_000
const STOP_TIMEOUT_MS = 30_000

const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kit-prove-startup-'))
const databaseName = (run: number) => `kit_prove_${process.pid}_${run}`
const databaseUrl = (name: string) => {
  const url = new URL(ADMIN_URL)
  url.pathname = `/${name}`
  return url.toString()
}

const admin = async (sql: string) => {
  const client = new pg.Client({ connectionString: ADMIN_URL })
  await client.connect()
  try {
    await client.query(sql)
  } finally {
    await client.end()
  }
}
const createDatabase = async (name: string) => {
  await admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)
  await admin(`CREATE DATABASE "${name}"`)
}
const created = new Set<string>()
const dropDatabases = async () => {
  for (const name of created) await admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => undefined)
  created.clear()
}

/** The committed migrations, as `payload_migrations` names them once applied. */
const committedMigrations = fs
  .readdirSync(path.join(root, 'migrations'))
  .filter((file) => file.endsWith('.ts') && file !== 'index.ts')
  .map((file) => file.slice(0, -3))

const appliedMigrations = async (name: string): Promise<number> => {
  const client = new pg.Client({ connectionString: databaseUrl(name) })
  await client.connect()
  try {
    const { rows } = await client.query<{ n: string }>(
      `SELECT count(DISTINCT name) AS n FROM payload_migrations WHERE name = ANY($1)`,
      [committedMigrations],
    )
    return Number(rows[0]?.n ?? 0)
  } catch {
    return 0
  } finally {
    await client.end()
  }
}

type Outcome = { run: number; ok: boolean; problem?: string; code: number | string | null; ms: number; log: string }

/** Process groups still running, ended if the proof itself is interrupted. */
const running = new Set<ChildProcess>()

/** `npm run <script>` in its own process group, its output in a file; `exited` settles with its exit code or signal. */
const runScript = (script: string, env: Record<string, string>, logFile: string) => {
  const out = fs.openSync(logFile, 'w')
  // npm runs scripts with /bin/sh; dash (Debian's sh) does not hand SIGTERM on to its child, so
  // npm's SIGTERM would stop the shell and leave the server running. bash execs a lone command.
  const child = spawn('npm', ['run', '--silent', '--script-shell=bash', script], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', out, out],
    detached: true,
  })
  running.add(child)
  const exited = new Promise<number | string>((resolve) => {
    child.on('exit', (code, signal) => {
      running.delete(child)
      resolve(code ?? signal ?? 'unknown')
    })
  })
  fs.closeSync(out)
  return { child, exited }
}

const killGroup = (child: ChildProcess, signal: NodeJS.Signals) => {
  try {
    if (child.pid) process.kill(-child.pid, signal)
  } catch {
    // the group is gone already
  }
}
const groupAlive = (child: ChildProcess) => {
  try {
    if (child.pid) process.kill(-child.pid, 0)
    return true
  } catch {
    return false
  }
}
/** The live processes of the child's group (`ps` lines); exited ones awaiting their reaper (zombies) do not count. */
const groupMembers = (child: ChildProcess): Promise<string[]> =>
  new Promise((resolve) => {
    const ps = spawn('ps', ['-o', 'pid=,stat=,args=', '-g', String(child.pid)])
    let out = ''
    ps.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString()
    })
    ps.on('close', () =>
      resolve(
        out
          .split('\n')
          .map((line) => line.trim())
          .filter((line) => line && !/^\d+\s+Z/.test(line)),
      ),
    )
  })

/** What is still running in the group a few seconds after npm exited (nothing, for a clean stop). */
const leftovers = async (child: ChildProcess): Promise<string | null> => {
  for (let waited = 0; waited < 5_000; waited += 100) {
    if (!groupAlive(child) || (await groupMembers(child)).length === 0) return null
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  const left = await groupMembers(child)
  return left.length === 0 ? null : left.join('; ')
}
const within = <T>(promise: Promise<T>, ms: number): Promise<T | 'timeout'> =>
  Promise.race([promise, new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), ms).unref())])

const migrateOnce = async (run: number): Promise<Outcome> => {
  const name = databaseName(run)
  await createDatabase(name)
  created.add(name)
  const log = path.join(workDir, `migrate-${run}.log`)
  const started = Date.now()
  const { child, exited } = runScript('migrate', { DATABASE_URL: databaseUrl(name), LOG_LEVEL: 'warn' }, log)
  const code = await within(exited, MIGRATE_TIMEOUT_MS)
  const ms = Date.now() - started
  if (code === 'timeout') {
    killGroup(child, 'SIGKILL')
    return { run, ok: false, problem: `no exit within ${MIGRATE_TIMEOUT_MS / 1000} s`, code: 'timeout', ms, log }
  }
  if (code !== 0) return { run, ok: false, problem: 'exit code', code, ms, log }
  const applied = await appliedMigrations(name)
  if (applied !== committedMigrations.length) {
    return { run, ok: false, problem: `${applied} of ${committedMigrations.length} migrations applied`, code, ms, log }
  }
  return { run, ok: true, code, ms, log }
}

const readyStatus = async (port: number): Promise<number | null> => {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(3_000) })
    await response.arrayBuffer()
    return response.status
  } catch {
    return null
  }
}

const portFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port })
    socket.once('connect', () => {
      socket.destroy()
      resolve(false)
    })
    socket.once('error', () => resolve(true))
  })

const signingKey = crypto.generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }) as string

const startOnce = async (run: number, port: number): Promise<Outcome & { readyMs?: number }> => {
  const name = databaseName(run)
  // A deploy migrates, then starts: start on the database the migration run left, or a fresh one.
  if (!created.has(name)) {
    await createDatabase(name)
    created.add(name)
  }
  const log = path.join(workDir, `start-${run}.log`)
  if (!(await portFree(port)))
    return { run, ok: false, problem: `port ${port} is taken by another program`, code: null, ms: 0, log }
  const dataDir = path.join(workDir, `data-${run}`)
  const started = Date.now()
  const { child, exited } = runScript(
    'start',
    {
      NODE_ENV: 'production',
      PORT: String(port),
      DATABASE_URL: databaseUrl(name),
      SERVER_URL: `http://localhost:${port}`,
      PAYLOAD_SECRET: crypto.randomBytes(24).toString('hex'),
      // Nothing is sent: no email, payment or code-host call happens during a start.
      SMTP_URL: 'smtp://127.0.0.1:9',
      PAYMENT_SECRET_KEY: 'sk_test_prove_startup',
      PAYMENT_WEBHOOK_SECRET: 'whsec_prove_startup',
      PUBLIC_PAYMENT_PUBLISHABLE_KEY: 'pk_test_prove_startup',
      REPO_ACCESS_TOKEN: 'prove-startup-token',
      REPO_OWNER: 'kit-org',
      REPO_NAME: 'starter-kit',
      REPO_API_URL: 'http://127.0.0.1:9',
      LICENSE_SIGNING_KEY: signingKey,
      DATA_DIR: dataDir,
      MEDIA_DIR: path.join(dataDir, 'media'),
    },
    log,
  )
  let exitCode: number | string | null = null
  void exited.then((code) => {
    exitCode = code
  })
  const fail = async (problem: string) => {
    killGroup(child, 'SIGKILL')
    await within(exited, 5_000)
    return { run, ok: false, problem, code: exitCode, ms: Date.now() - started, log }
  }

  let readyMs: number | undefined
  while (readyMs === undefined) {
    if (exitCode !== null) return fail('exited before /readyz answered 200')
    if (Date.now() - started > READY_TIMEOUT_MS)
      return fail(`/readyz did not answer 200 within ${READY_TIMEOUT_MS / 1000} s`)
    if ((await readyStatus(port)) === 200) readyMs = Date.now() - started
    else await new Promise((resolve) => setTimeout(resolve, 100))
  }

  // npm hands SIGTERM on to the server, as a process manager that signals `npm start` would.
  child.kill('SIGTERM')
  const code = await within(exited, STOP_TIMEOUT_MS)
  if (code === 'timeout') return fail(`still running ${STOP_TIMEOUT_MS / 1000} s after SIGTERM`)
  const ms = Date.now() - started
  const left = await leftovers(child)
  if (left) {
    killGroup(child, 'SIGKILL')
    return { run, ok: false, problem: `processes still running 5 s after npm exited: ${left}`, code, ms, log, readyMs }
  }
  if (code !== 0) return { run, ok: false, problem: 'exit code after SIGTERM', code, ms, log, readyMs }
  if (!fs.readFileSync(log, 'utf8').includes('server stopped')) {
    return { run, ok: false, problem: 'no "server stopped" line', code, ms, log, readyMs }
  }
  fs.rmSync(dataDir, { recursive: true, force: true })
  return { run, ok: true, code, ms, log, readyMs }
}

/** Runs 1..total through `parallel` slots; a slot's index picks its port. */
const inSlots = async <T>(
  total: number,
  task: (run: number, slot: number) => Promise<T>,
  onDone: (result: T) => void,
) => {
  let next = 1
  await Promise.all(
    Array.from({ length: Math.min(PARALLEL, total) }, async (_unused, slot) => {
      while (next <= total) {
        const run = next
        next += 1
        onDone(await task(run, slot))
      }
    }),
  )
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`
const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0
}
const spread = (values: number[]) =>
  values.length === 0
    ? 'none'
    : `min ${seconds(Math.min(...values))}, median ${seconds(percentile(values, 50))}, p95 ${seconds(percentile(values, 95))}, max ${seconds(Math.max(...values))}`

const tail = (file: string, lines = 30) => {
  try {
    return fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n')
  } catch {
    return '(no log)'
  }
}

const summarize = (label: string, outcomes: Outcome[], wallMs: number) => {
  const failed = outcomes.filter((outcome) => !outcome.ok)
  const codes = new Map<string, number>()
  for (const outcome of outcomes) codes.set(String(outcome.code), (codes.get(String(outcome.code)) ?? 0) + 1)
  console.info(
    `${label}: ${outcomes.length - failed.length}/${outcomes.length} passed in ${seconds(wallMs)}; exit codes ${[
      ...codes,
    ]
      .map(([code, n]) => `${code} x${n}`)
      .join(', ')}; each ${spread(outcomes.map((outcome) => outcome.ms))}`,
  )
  for (const outcome of failed) {
    console.info(
      `\n--- ${label} #${outcome.run} FAILED: ${outcome.problem} (exit ${outcome.code}, after ${seconds(outcome.ms)}); ${outcome.log}:`,
    )
    console.info(tail(outcome.log))
  }
  return failed.length
}

const ensureBuild = async () => {
  if (
    fs.existsSync(path.join(root, '.next', 'BUILD_ID')) &&
    fs.existsSync(path.join(root, 'dist', 'server', 'server.mjs'))
  )
    return
  console.info('no production build in .next and dist/server: npm run build')
  const log = path.join(workDir, 'build.log')
  const { exited } = runScript('build', {}, log)
  const code = await exited
  if (code !== 0) {
    console.info(tail(log, 60))
    throw new Error(`npm run build exited ${code}`)
  }
}

const main = async () => {
  console.info(
    `start-up proof: ${MIGRATIONS} migrations on fresh databases, ${STARTUPS} production start-ups, ${PARALLEL} at a time ` +
      `(node ${process.version}, ${os.cpus().length} cores, logs in ${workDir})`,
  )
  await ensureBuild()
  let failures = 0

  const migrations: Outcome[] = []
  let wall = Date.now()
  await inSlots(
    MIGRATIONS,
    (run) => migrateOnce(run),
    (outcome) => {
      migrations.push(outcome)
      process.stdout.write(outcome.ok ? '.' : 'F')
    },
  )
  if (MIGRATIONS > 0) process.stdout.write('\n')
  failures += summarize(
    'npm run migrate',
    migrations.sort((a, b) => a.run - b.run),
    Date.now() - wall,
  )

  const startups: (Outcome & { readyMs?: number })[] = []
  wall = Date.now()
  await inSlots(
    STARTUPS,
    (run, slot) => startOnce(run, FIRST_PORT + slot),
    (outcome) => {
      startups.push(outcome)
      process.stdout.write(outcome.ok ? '.' : 'F')
    },
  )
  if (STARTUPS > 0) process.stdout.write('\n')
  failures += summarize(
    'npm start',
    startups.sort((a, b) => a.run - b.run),
    Date.now() - wall,
  )
  const ready = startups.flatMap((outcome) => (outcome.readyMs === undefined ? [] : [outcome.readyMs]))
  if (ready.length > 0) console.info(`npm start: /readyz 200 after ${spread(ready)}`)

  await dropDatabases()
  if (failures === 0) fs.rmSync(workDir, { recursive: true, force: true })
  console.info(
    failures === 0 ? 'start-up proof: no failure' : `start-up proof: ${failures} failure(s); logs kept in ${workDir}`,
  )
  process.exitCode = failures === 0 ? 0 : 1
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    for (const child of running) killGroup(child, 'SIGKILL')
    void dropDatabases().finally(() => process.exit(130))
  })
}
main().catch(async (error: unknown) => {
  console.error(`start-up proof failed to run: ${error instanceof Error ? error.message : String(error)}`)
  await dropDatabases()
  process.exit(1)
})

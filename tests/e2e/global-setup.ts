/**
 * The scenarios' world, made once per `npm run test:e2e`: the production build (`npm run build` when
 * .next or dist/server is missing; E2E_BUILD=1 rebuilds), a scratch database (E2E_DATABASE_URL, dropped
 * and recreated), the stand-ins' process (tests/e2e/standins.ts), the built server run as `npm start`
 * runs it, and what staff do before customers come. Returns the teardown: both processes stopped, and the
 * run's logs kept in failed-run/ when a scenario (or this set-up) failed.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import readline from 'node:readline'
import zlib from 'node:zlib'

import pg from 'pg'

import { BUILT_SERVER, startEnv, startNodeArgs } from '../../src/process/start-command'
import {
  adminToken,
  api,
  base,
  databaseUrl,
  failedRunDir,
  failuresFile,
  PASSWORD,
  port,
  RELEASE_VERSION,
  resultsDir,
  root,
  type RunState,
  screenshotDir,
  STAFF,
} from './service'

const recreateDatabase = async () => {
  const admin = new URL(databaseUrl)
  const name = admin.pathname.slice(1)
  admin.pathname = '/postgres'
  const client = new pg.Client({ connectionString: admin.toString() })
  await client.connect()
  await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)
  await client.query(`CREATE DATABASE "${name}"`)
  await client.end()
}

const ensureBuild = () => {
  const built = fs.existsSync(path.join(root, '.next/BUILD_ID')) && fs.existsSync(path.join(root, BUILT_SERVER))
  if (built && process.env.E2E_BUILD !== '1') return
  console.info('npm run build (no production build in .next and dist/server, or E2E_BUILD=1)')
  const build = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' })
  if (build.status !== 0) throw new Error(`npm run build failed (exit ${build.status})`)
}

/** A child whose output goes to `<dataDir>/<name>.log`, detached so that its whole group can be stopped. */
const startChild = (
  children: ChildProcess[],
  dataDir: string,
  name: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): ChildProcess => {
  const log = fs.openSync(path.join(dataDir, `${name}.log`), 'a')
  const child = spawn(process.execPath, args, { cwd: root, env, detached: true, stdio: ['ignore', 'pipe', log] })
  fs.closeSync(log)
  children.push(child)
  return child
}

const stopChildren = async (children: ChildProcess[]) => {
  for (const child of children.reverse()) {
    if (child.exitCode !== null || child.signalCode !== null) continue
    const exited = new Promise((resolve) => child.once('exit', resolve))
    process.kill(-child.pid!, 'SIGTERM')
    const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 20_000)
    await exited
    clearTimeout(timer)
  }
}

type StandIns = { serverEnv: Record<string, string> } & Omit<RunState, 'dataDir' | 'outbox'>

/** The stand-ins' process; settles with the settings it printed on its `ready` line. */
const startStandIns = (children: ChildProcess[], dataDir: string, outbox: string): Promise<StandIns> => {
  const child = startChild(
    children,
    dataDir,
    'standins',
    ['--conditions=production', '--import', 'tsx', 'tests/e2e/standins.ts'],
    {
      ...process.env,
      E2E_SERVER_URL: base,
      E2E_OUTBOX: outbox,
      E2E_STANDIN_PORTS: [port + 11, port + 12, port + 13, port + 14, port + 15].join(','),
    },
  )
  const lines = readline.createInterface({ input: child.stdout! })
  return new Promise<StandIns>((resolve, reject) => {
    lines.on('line', (line) => {
      if (line.startsWith('ready ')) resolve(JSON.parse(line.slice('ready '.length)) as StandIns)
    })
    child.once('exit', (code) => reject(new Error(`the stand-ins exited (${code}); see ${dataDir}/standins.log`)))
  })
}

/** `npm start`: the built server in production mode, with every setting explicit. */
const startServer = async (children: ChildProcess[], dataDir: string, standIns: StandIns): Promise<void> => {
  const keep = ['PATH', 'HOME', 'LANG', 'TMPDIR', 'TERM'].flatMap((name) =>
    process.env[name] ? [[name, process.env[name]]] : [],
  )
  const server = startChild(
    children,
    dataDir,
    'server',
    [...startNodeArgs(root), BUILT_SERVER],
    startEnv(root, {
      ...Object.fromEntries(keep),
      ...standIns.serverEnv,
      NODE_ENV: 'production',
      PORT: String(port),
      SERVER_URL: base,
      DATABASE_URL: databaseUrl,
      PAYLOAD_SECRET: crypto.randomBytes(32).toString('hex'),
      LICENSE_SIGNING_KEY: crypto
        .generateKeyPairSync('ed25519')
        .privateKey.export({ type: 'pkcs8', format: 'pem' })
        .toString(),
      DATA_DIR: dataDir,
      MEDIA_DIR: path.join(dataDir, 'media'),
      RELEASES_DIR: path.join(dataDir, 'releases'),
      TEMPLATES_DIR: path.join(dataDir, 'templates'),
      JOBS_RETRY_DELAY_MS: '1000',
      // A scenario may name its own client address (X-Forwarded-For), so the whole run's sign-ups do not
      // share one address's limit (10 an hour); scenarios that send none are 127.0.0.1 as before.
      TRUSTED_PROXIES: '127.0.0.1,::1',
      // The webhooks scenario's receiver listens on 127.0.0.1.
      WEBHOOK_ALLOW_PRIVATE: 'true',
      // The checkout recovery scenario waits for its email: the shortest delay there is.
      RECOVERY_EMAIL_DELAY_MINUTES: '1',
      // The affiliates scenario pays a commission out at once, without waiting for the refund period.
      AFFILIATE_HOLD_DAYS: '0',
    }),
  )
  server.stdout!.pipe(fs.createWriteStream(path.join(dataDir, 'server.out.log')))
  for (let attempt = 0; attempt < 240; attempt += 1) {
    try {
      if ((await fetch(`${base}/readyz`)).ok) return
    } catch {
      // not listening yet
    }
    if (server.exitCode !== null)
      throw new Error(`the server exited (${server.exitCode}); see ${dataDir}/server.out.log`)
    await new Promise((resolve) => setTimeout(resolve, 500))
  }
  throw new Error(`the server did not become ready in 2 minutes; see ${dataDir}/server.out.log`)
}

/** What staff do before customers come: the first admin, a support agent, a published release. */
const prepareStaff = async (): Promise<void> => {
  await api('/api/users/first-register', { json: { email: STAFF.admin, password: PASSWORD } })
  const token = await adminToken()
  await api('/api/users', {
    jwt: token,
    json: { email: STAFF.support, password: PASSWORD, roles: ['support'], emailVerified: true },
  })
  const form = new FormData()
  form.append(
    '_payload',
    JSON.stringify({ version: RELEASE_VERSION, publishedAt: new Date(Date.now() - 60_000).toISOString() }),
  )
  // A real gzip archive: Payload checks an upload's type from its bytes.
  form.append(
    'file',
    new Blob([zlib.gzipSync(crypto.randomBytes(32 * 1024))], { type: 'application/gzip' }),
    `starter-kit-${RELEASE_VERSION}.tar.gz`,
  )
  await api('/api/releases', { jwt: token, form })
}

/** Stops the processes; keeps the logs (and Playwright's failure screenshots and traces) in failed-run/ after a failure. */
const tearDown = async (children: ChildProcess[], dataDir: string, failed: boolean) => {
  await stopChildren(children)
  if (failed) {
    // Beside the page screenshots, so that CI keeps them as one artifact.
    fs.cpSync(dataDir, failedRunDir, {
      recursive: true,
      filter: (source) => !source.includes(`${path.sep}media`) && !source.includes(`${path.sep}releases`),
    })
    if (fs.existsSync(resultsDir)) fs.cpSync(resultsDir, failedRunDir, { recursive: true })
    console.error(`server and stand-in logs, failure screenshots and traces: ${failedRunDir}`)
  } else {
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
  console.info(`screenshots in ${screenshotDir}`)
}

export default async function globalSetup(): Promise<() => Promise<void>> {
  fs.rmSync(failedRunDir, { recursive: true, force: true })
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kit-e2e-'))
  const outbox = path.join(dataDir, 'outbox')
  const children: ChildProcess[] = []
  try {
    ensureBuild()
    await recreateDatabase()
    const standIns = await startStandIns(children, dataDir, outbox)
    await startServer(children, dataDir, standIns)
    await prepareStaff()
    const { serverEnv: _serverEnv, ...seen } = standIns
    const state: RunState = { dataDir, outbox, ...seen }
    process.env.E2E_RUN = JSON.stringify(state)
  } catch (error) {
    await tearDown(children, dataDir, true)
    throw error
  }
  return () => tearDown(children, dataDir, fs.existsSync(failuresFile(dataDir)))
}

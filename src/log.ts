import { AsyncLocalStorage } from 'node:async_hooks'
import { createRequire } from 'node:module'
import path from 'node:path'
import { format } from 'node:util'

import { destination, type DestinationStream, type Logger, type LoggerOptions, pino, stdTimeFunctions } from 'pino'

export type { Logger }

/** What every line written while it is current carries: the request, the job or the processor event. */
export type LogContext = {
  requestId?: string
  jobId?: number | string
  task?: string
  eventId?: string
  eventType?: string
}

const LEVELS = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])

/**
 * Fields whose value is never written, at the top of a line or one object down (`headers.cookie`):
 * a second line of defence, as no code logs these on purpose.
 */
const SECRET_KEYS = [
  'authorization',
  'cookie',
  'set-cookie',
  'password',
  'currentPassword',
  'newPassword',
  'token',
  'accessToken',
  'refreshToken',
  'idToken',
  'apiKey',
  'key',
  'licenseKey',
  'secret',
  'clientSecret',
  'webhookSecret',
  'secretKey',
  'signingKey',
  'signature',
  'certificate',
  'resetPasswordToken',
  'salt',
  'hash',
]
const SECRETS = new Set(SECRET_KEYS)
const HEADER_SECRETS = new Set(['authorization', 'cookie', 'set-cookie'])
const CENSOR = '[redacted]'

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * `object` with `secrets` censored, and (`nested`) the same one object down and the header secrets of a
 * `headers` object two down; `object` itself when it holds none, so a line without secrets (nearly
 * every line) allocates nothing. pino's `redact` did this with wildcard paths (`*.token`), but its
 * current implementation parses each of them and clones the line on every call, secrets or not: a
 * quarter of what a busy server allocated.
 */
const censored = (object: Record<string, unknown>, secrets: Set<string>, nested: boolean): Record<string, unknown> => {
  let copy: Record<string, unknown> | null = null
  for (const key of Object.keys(object)) {
    const value = object[key]
    const next = secrets.has(key)
      ? CENSOR
      : !isRecord(value)
        ? value
        : nested
          ? censored(value, SECRETS, false)
          : key === 'headers'
            ? censored(value, HEADER_SECRETS, false)
            : value
    if (next !== value) {
      copy ??= { ...object }
      copy[key] = next
    }
  }
  return copy ?? object
}

/** A line's fields with every secret field censored (see SECRET_KEYS). */
const censorSecrets = (object: Record<string, unknown>): Record<string, unknown> => censored(object, SECRETS, true)

/**
 * A failed query's message carries its parameters (emails, license keys, token hashes): they go,
 * the database's own words stay. Applied to every message and error.
 */
const scrubQueryParams = (text: string): string =>
  text.replace(/\nparams: [\s\S]*?(?=\n\s+at |$)/g, '\nparams: [redacted]')

type SerializedError = {
  type: string
  message: string
  stack?: string
  code?: unknown
  status?: unknown
  cause?: SerializedError
}

/**
 * Name, message, stack, code and status only: an error's other properties can hold the offending
 * value (PostgreSQL's `detail` names the duplicate key).
 */
const serializeError = (value: unknown, depth = 0): unknown => {
  if (!(value instanceof Error)) return typeof value === 'string' ? scrubQueryParams(value) : value
  const error = value as Error & { code?: unknown; status?: unknown }
  const serialized: SerializedError = { type: error.name, message: scrubQueryParams(error.message) }
  if (error.stack) serialized.stack = scrubQueryParams(error.stack)
  if (error.code !== undefined) serialized.code = error.code
  if (error.status !== undefined) serialized.status = error.status
  if (error.cause instanceof Error && depth < 3)
    serialized.cause = serializeError(error.cause, depth + 1) as SerializedError
  return serialized
}

// PATCH: job-log-lines
/** Payload's job lines carry the whole job (its input included): keep its id and task. */
const normalizeJob = (object: Record<string, unknown>): Record<string, unknown> => {
  const job = object.job as { id?: unknown; taskSlug?: unknown; workflowSlug?: unknown } | undefined
  if (!job || typeof job !== 'object') return object
  const { job: _job, ...rest } = object
  return { jobId: job.id, task: job.taskSlug ?? job.workflowSlug, ...rest }
}

// PATCH: module-copies
/** Shared by every copy of this module: Next's route handlers bundle their own (see src/jobs/worker.ts). */
type Shared = { context: AsyncLocalStorage<LogContext>; root?: Logger }
const SHARED = Symbol.for('starter-kit.log')
const shared = (): Shared => {
  const holder = globalThis as unknown as Record<symbol, Shared | undefined>
  holder[SHARED] ??= { context: new AsyncLocalStorage<LogContext>() }
  return holder[SHARED]
}

/** The current request's, job's or event's fields, if any. */
const logContext = (): LogContext | undefined => shared().context.getStore()

/** Run `work` with these fields on every line it writes (added to the current ones). */
export const withLogContext = <T>(context: LogContext, work: () => T): T =>
  shared().context.run({ ...logContext(), ...context }, work)

export type LoggerSettings = {
  /** LOG_LEVEL's default: `info`; an unknown level falls back to it. */
  level?: string
  /** Human-readable lines (development) instead of JSON (production, and wherever a destination is given). */
  pretty?: boolean
  destination?: DestinationStream
}

const levelOf = (level: string | undefined): string => {
  if (process.env.DISABLE_LOGGING === 'true') return 'silent'
  const wanted = level?.trim().toLowerCase() || 'info'
  return LEVELS.has(wanted) ? wanted : 'info'
}

type PrettyStream = (options: Record<string, unknown>) => DestinationStream

/**
 * pino-pretty, loaded only when development asks for readable lines: it is a development dependency,
 * so production neither installs nor loads it. Resolved from the project at run time (not bundled);
 * null when it is not installed, and the lines stay JSON.
 */
const loadPrettyStream = (): PrettyStream | null => {
  try {
    const required = createRequire(path.join(process.cwd(), 'package.json'))('pino-pretty') as { build: PrettyStream }
    return required.build
  } catch {
    return null
  }
}

export const createLogger = (settings: LoggerSettings = {}): Logger => {
  const options: LoggerOptions = {
    level: levelOf(settings.level),
    // Top-level secrets also in a child logger's bindings, which the log formatter does not see: pino
    // looks these up by key, only on a line that has one.
    redact: { paths: SECRET_KEYS.map((key) => (/^\w+$/.test(key) ? key : `["${key}"]`)), censor: CENSOR },
    serializers: { err: serializeError, error: serializeError, msg: (message: unknown) => serializeError(message) },
    mixin: () => ({ ...logContext() }),
    formatters: { log: (object) => censorSecrets(normalizeJob(object)) },
  }
  const prettyStream = settings.pretty && !settings.destination ? loadPrettyStream() : null
  if (prettyStream) {
    return pino(
      options,
      prettyStream({
        ignore: 'pid,hostname',
        translateTime: 'SYS:HH:MM:ss',
        singleLine: true,
        sync: true,
        destination: 1,
      }),
    )
  }
  return pino(
    {
      ...options,
      timestamp: stdTimeFunctions.isoTime,
      formatters: { ...options.formatters, level: (label) => ({ level: label }) },
    },
    // Synchronous: a line is written whole before the next (two Payload copies share the process) and none is lost on exit.
    settings.destination ?? destination({ dest: 1, sync: true }),
  )
}

/**
 * The process's logger, made on first import: JSON lines on stdout in production, readable lines in
 * development, at LOG_LEVEL. Import it after the .env files are loaded (server.ts does).
 */
export const logger: Logger = (shared().root ??= createLogger({
  level: process.env.LOG_LEVEL,
  pretty: process.env.NODE_ENV !== 'production',
}))

// PATCH: process-output
/**
 * Production: what libraries print through `console` (Next's and React's messages), Node's warnings
 * and a crash's error become lines too, so every line of the log parses. A crash still exits 1.
 */
export const sendProcessOutputToLogger = (target: Logger): void => {
  const printed = logger.child({ name: 'console' })
  const line =
    (level: 'debug' | 'info' | 'warn' | 'error') =>
    (...args: unknown[]) => {
      const error = args.find((arg): arg is Error => arg instanceof Error)
      const message = format(...args.map((arg) => (arg instanceof Error ? arg.message : arg)))
      if (error) printed[level]({ err: error }, message)
      else printed[level](message)
    }
  Object.assign(console, {
    log: line('info'),
    info: line('info'),
    debug: line('debug'),
    trace: line('debug'),
    warn: line('warn'),
    error: line('error'),
  })
  // Node's own listener prints warnings as plain text on stderr.
  process.removeAllListeners('warning')
  process.on('warning', (warning) => target.warn({ err: warning }, warning.message))
  process.on('uncaughtException', (error) => {
    target.fatal({ err: error }, 'uncaught exception')
    process.exit(1)
  })
}

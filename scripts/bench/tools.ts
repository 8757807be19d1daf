/**
 * The bench's own tools: Lighthouse 12.2.3, chrome-launcher 1.2.1 and autocannon 9.0.0, with their 200-odd
 * dependencies. They are not in the project's install (a newcomer's `npm install` does not download them):
 * `scripts/bench/tools/package.json` and its lockfile pin them, and the first `npm run bench` installs them
 * into `scripts/bench/tools/node_modules` (git-ignored) with `npm ci`, again only when the lockfile changes
 * (its hash is kept beside them). Each loader imports its tool from there.
 *
 * The types below are the part of each tool's API the bench uses, declared here so that the type check
 * (CI runs it on a fresh clone, without the tools) needs nothing installed. They follow the pinned
 * versions' own declarations (lighthouse/types/lhr, chrome-launcher/dist/chrome-launcher.d.ts); autocannon
 * ships none.
 */
import { spawnSync } from 'node:child_process'
import crypto from 'node:crypto'
import fs from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { pathToFileURL } from 'node:url'

/** Where the tools' manifest and lockfile are, and where `npm ci` installs them (node_modules below it). */
const TOOLS_DIR = path.resolve(import.meta.dirname, 'tools')
const LOCKFILE = path.join(TOOLS_DIR, 'package-lock.json')
/** The hash of the lockfile the installed tools came from. */
const STAMP = path.join(TOOLS_DIR, 'node_modules', '.bench-tools-lock.sha256')

// autocannon 9 (it ships no types).
type Headers = Record<string, string>

export type RequestSpec = {
  method?: string
  path?: string
  headers?: Headers
  body?: string
  /** Called as each request is built; what it returns is sent. */
  setupRequest?: (request: RequestSpec, context: Record<string, unknown>) => RequestSpec | null
}

type Histogram = {
  average: number
  stddev: number
  min: number
  max: number
  p50: number
  p90: number
  p99: number
  total: number
  sent: number
}

export type Result = {
  /** Seconds, to two decimals. */
  duration: number
  requests: Histogram
  /** Milliseconds. */
  latency: Histogram
  errors: number
  timeouts: number
  non2xx: number
  statusCodeStats: Record<string, { count: number }>
}

type AutocannonOptions = {
  url: string
  connections?: number
  /** Seconds. */
  duration?: number
  /** Seconds to wait for an answer. */
  timeout?: number
  requests?: RequestSpec[]
}

type AutocannonInstance = PromiseLike<Result> & {
  stop: () => void
  /** Each answer: its status and its time in milliseconds (not rounded), as autocannon's run.js emits it. */
  on: (
    event: 'response',
    listener: (client: unknown, statusCode: number, bytes: number, responseTime: number) => void,
  ) => void
}

export type Autocannon = (options: AutocannonOptions) => AutocannonInstance

// chrome-launcher 1.2.1.
export type LaunchedChrome = {
  pid: number
  port: number
  kill: () => void
}

export type ChromeLauncher = {
  launch: (options?: {
    chromePath?: string
    chromeFlags?: string[]
    port?: number
    handleSIGINT?: boolean
    logLevel?: 'verbose' | 'info' | 'error' | 'warn' | 'silent'
  }) => Promise<LaunchedChrome>
}

// Lighthouse 12.2.3: its result (LH.Result) and its Node entry point.
type AuditResult = {
  id: string
  title: string
  score: number | null
  scoreDisplayMode: 'numeric' | 'binary' | 'metricSavings' | 'manual' | 'informative' | 'notApplicable' | 'error'
  displayValue?: string
  errorMessage?: string
  numericValue?: number
  details?: unknown
  metricSavings?: Partial<Record<string, number>>
}

type Category = {
  id: string
  title: string
  score: number | null
  auditRefs: { id: string; weight: number; group?: string }[]
}

export type LighthouseResult = {
  lighthouseVersion: string
  audits: Record<string, AuditResult>
  categories: Record<string, Category>
  runWarnings: string[]
  runtimeError?: { code: string; message: string }
  environment: { hostUserAgent: string; networkUserAgent: string; benchmarkIndex: number }
}

/** A Lighthouse config (LH.Config), such as its desktop preset; the bench passes it on as it is. */
export type LighthouseConfig = { extends?: 'lighthouse:default'; settings?: Record<string, unknown> }

export type Lighthouse = (
  url: string,
  flags?: {
    port?: number
    output?: ('json' | 'html' | 'csv')[]
    logLevel?: 'silent' | 'error' | 'warn' | 'info' | 'verbose'
  },
  config?: LighthouseConfig,
) => Promise<{ lhr: LighthouseResult; report: string | string[] } | undefined>

const lockfileHash = () => crypto.createHash('sha256').update(fs.readFileSync(LOCKFILE)).digest('hex')

const installed = (hash: string) => {
  try {
    return fs.readFileSync(STAMP, 'utf8').trim() === hash
  } catch {
    return false
  }
}

/**
 * `npm ci` of the tools' lockfile into TOOLS_DIR, unless the tools there came from this very lockfile.
 * No install scripts run (none of the tools has one). About ten seconds and 120 MB.
 */
export const installBenchTools = (log: (line: string) => void = (line) => console.info(`[bench] ${line}`)): void => {
  const hash = lockfileHash()
  if (installed(hash)) return
  const started = Date.now()
  log(`installing the bench's tools (Lighthouse, chrome-launcher, autocannon) into ${TOOLS_DIR}/node_modules`)
  const result = spawnSync(
    'npm',
    ['ci', '--prefix', TOOLS_DIR, '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'],
    { stdio: 'inherit' },
  )
  if (result.status !== 0)
    throw new Error(`npm ci --prefix ${TOOLS_DIR} failed (${result.error?.message ?? `exit ${result.status}`})`)
  fs.writeFileSync(STAMP, `${hash}\n`)
  log(`bench tools installed in ${((Date.now() - started) / 1000).toFixed(1)} s`)
}

/**
 * `specifier` (a tool, or a file of one) as installed in TOOLS_DIR; none of the three has an `exports`
 * map, so a package's entry is its `main` and a file is found by its path in the package.
 */
const importTool = async (specifier: string): Promise<unknown> => {
  installBenchTools()
  const entry = createRequire(path.join(TOOLS_DIR, 'package.json')).resolve(specifier)
  return import(pathToFileURL(entry).href)
}

const memo = <T>(load: () => Promise<T>) => {
  let loading: Promise<T> | undefined
  return () => (loading ??= load())
}

/** autocannon's default export (a CommonJS module: Node hands its module.exports over as the default). */
export const loadAutocannon = memo(async () => ((await importTool('autocannon')) as { default: Autocannon }).default)

export const loadChromeLauncher = memo(async () => (await importTool('chrome-launcher')) as ChromeLauncher)

export const loadLighthouse = memo(async () => ((await importTool('lighthouse')) as { default: Lighthouse }).default)

/** Lighthouse's desktop preset (`lighthouse/core/config/desktop-config.js`). */
export const loadLighthouseDesktopConfig = memo(
  async () => ((await importTool('lighthouse/core/config/desktop-config.js')) as { default: LighthouseConfig }).default,
)

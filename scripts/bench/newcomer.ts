/**
 * A newcomer (issue 42): what README's first command, `npm install && npm run dev`, costs on a fresh
 * machine. Clones HEAD (the committed state: uncommitted changes are not in it) into a temporary folder,
 * runs `npm install` there with an empty npm cache (every package comes from the registry, as on a
 * machine that never installed them), then `npm run dev` with none of the service's variables (so it
 * starts the embedded PostgreSQL and the stand-ins, as a newcomer's does) and times its first answer to
 * `GET /admin`. Node, npm and the git clone are the machine's; the temporary folder also holds TMPDIR
 * (tsx's and Next's caches start empty) and the npm cache, and goes at the end with every process of
 * the dev server's process group.
 *
 * Ports: the dev server and its embedded PostgreSQL and stand-ins take free ports the system hands out
 * (never the bench's 4150-4154 or the defaults 3000, 54329 and 12111-12114 a developer's `npm run dev` may hold).
 *
 * `npm run bench` calls `measureNewcomer`; on its own: `node --import tsx scripts/bench/newcomer.ts`
 * prints the figures and notes as JSON (about two to three minutes).
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

import { ROOT, stopProcessGroup } from './processes'

export type NewcomerOutcome = {
  /** `npm install` in the fresh clone with an empty npm cache, seconds; null when it failed. */
  installSeconds: number | null
  /** From launching `npm run dev` to the first answer to `GET /admin`; null when none came (see `error`). */
  firstAdminSeconds: number | null
  /** The first answer's HTTP status (a redirect is not followed). */
  adminStatus: number | null
  /** Why a figure is missing: a failed step, with the tail of its output. */
  error: string | null
  /** Lines for the report: what ran, how long each step of the dev server's start took. */
  notes: string[]
}

type Log = (line: string) => void

/** How long the dev server may take to answer its first `/admin` (BENCH_NEWCOMER_TIMEOUT_SECONDS). */
const ADMIN_TIMEOUT_SECONDS = Number(process.env.BENCH_NEWCOMER_TIMEOUT_SECONDS ?? 300)

/** Lines of `npm run dev`'s output whose first appearance marks a step of its start (seconds after launch). */
const DEV_STEPS: { label: string; text: string }[] = [
  { label: 'embedded PostgreSQL up', text: 'embedded PostgreSQL started' },
  { label: 'database prepared (migrations, plans, content)', text: ' sources: ' },
  { label: 'Next.js starting', text: 'starting Next.js' },
  { label: 'server listening', text: 'server ready on' },
  { label: 'Next compiling /admin', text: 'Compiling /admin' },
]

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** `command` to its end, its output collected (the event loop keeps turning meanwhile). */
const run = (command: string, args: string[], options: { cwd?: string; env: NodeJS.ProcessEnv }) =>
  new Promise<{ status: number | null; output: string }>((resolve) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')))
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')))
    child.once('error', (error) => resolve({ status: null, output: `${output}${error.message}` }))
    child.once('close', (status) => resolve({ status, output }))
  })

/** A port nothing listens on now, handed out by the system. */
const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const probe = net.createServer()
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address()
      probe.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))))
    })
  })

/**
 * A newcomer's shell: the machine's PATH without any node_modules/.bin (`npm run bench` puts the
 * project's own first, with its Node 24), HOME (npm's user config), the locale and terminal; no npm_*
 * variable of the bench's own npm and none of the service's variables.
 */
const newcomerEnv = (tmpDir: string): NodeJS.ProcessEnv =>
  // No NODE_ENV either, as in a newcomer's shell (Next's types declare it in every environment).
  ({
    PATH: (process.env.PATH ?? '')
      .split(path.delimiter)
      .filter((entry) => entry && !entry.includes(`${path.sep}node_modules${path.sep}`))
      .join(path.delimiter),
    ...Object.fromEntries(
      ['HOME', 'LANG', 'LC_ALL', 'TERM', 'USER'].flatMap((name) =>
        process.env[name] ? [[name, process.env[name]]] : [],
      ),
    ),
    TMPDIR: tmpDir,
  }) as Record<string, string> as unknown as NodeJS.ProcessEnv

const tail = (text: string, lines = 15) => text.trim().split('\n').slice(-lines).join('\n')

/** SIGTERM to the whole process group (npm, the server, its database preparation, PostgreSQL), SIGKILL after 20 s. */
const stopGroup = async (child: ChildProcess): Promise<void> => {
  if (child.pid !== undefined) await stopProcessGroup(child.pid)
}

/**
 * Clones HEAD into a temporary folder, times `npm install` there with an empty npm cache and then the
 * first answer of `npm run dev` to `GET /admin`, stops the dev server's process group and removes the
 * folder. Never throws for a failing step: `error` says which and why, and the figures after it are null.
 */
export const measureNewcomer = async (log: Log): Promise<NewcomerOutcome> => {
  const notes: string[] = []
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kit-newcomer-'))
  // Run as root, the embedded PostgreSQL runs as the `postgres` user: it must reach the clone's .data and
  // the password file initdb reads from TMPDIR.
  fs.chmodSync(workDir, 0o755)
  const repo = path.join(workDir, 'repo')
  const tmpDir = path.join(workDir, 'tmp')
  const npmCache = path.join(workDir, 'npm-cache')
  fs.mkdirSync(tmpDir)
  fs.chmodSync(tmpDir, 0o1777)
  const env = newcomerEnv(tmpDir)
  let dev: ChildProcess | null = null
  /** The dev server's output, open until its process group is gone. */
  let devLog: number | null = null
  const outcome: NewcomerOutcome = {
    installSeconds: null,
    firstAdminSeconds: null,
    adminStatus: null,
    error: null,
    notes,
  }
  try {
    const commit = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).stdout.trim()
    const clone = spawnSync('git', ['clone', '--quiet', ROOT, repo], { encoding: 'utf8' })
    if (clone.status !== 0) throw new Error(`git clone failed: ${tail(clone.stderr)}`)
    const versions = spawnSync('node', ['--version'], { env, encoding: 'utf8' }).stdout.trim()
    const npmVersion = spawnSync('npm', ['--version'], { env, encoding: 'utf8' }).stdout.trim()

    log(`newcomer: npm install in a fresh clone of ${commit} (${repo}), empty npm cache`)
    const installStart = Date.now()
    const install = await run('npm', ['install', '--cache', npmCache, '--no-audit', '--no-fund'], { cwd: repo, env })
    const installSeconds = (Date.now() - installStart) / 1000
    if (install.status !== 0) throw new Error(`npm install failed (exit ${install.status}):\n${tail(install.output)}`)
    outcome.installSeconds = installSeconds
    const added = /added \d+ packages?/.exec(install.output)?.[0] ?? 'installed'
    const size = spawnSync('du', ['-sm', path.join(repo, 'node_modules')], { encoding: 'utf8' }).stdout.split('\t')[0]
    log(`newcomer: npm install took ${installSeconds.toFixed(1)} s (${added}, ${size} MiB in node_modules)`)
    notes.push(
      `Newcomer: \`git clone\` of ${commit} into a temporary folder, then \`npm install --no-audit --no-fund\` with an empty npm cache (every package downloaded from the registry): ${installSeconds.toFixed(1)} s, ${added}, ${size} MiB in node_modules; the machine's Node ${versions} and npm ${npmVersion}.`,
    )

    const [port, postgres, processor, codeHost, oauth, discord] = await Promise.all(
      Array.from({ length: 6 }, () => freePort()),
    )
    devLog = fs.openSync(path.join(workDir, 'dev.log'), 'a')
    const out = devLog
    const seen = new Map<string, number>()
    log(`newcomer: npm run dev on port ${port}, no DATABASE_URL (embedded PostgreSQL on ${postgres})`)
    const devStart = Date.now()
    dev = spawn('npm', ['run', 'dev'], {
      cwd: repo,
      env: {
        ...env,
        PORT: String(port),
        EMBEDDED_POSTGRES_PORT: String(postgres),
        PROCESSOR_STANDIN_PORT: String(processor),
        CODE_HOST_STANDIN_PORT: String(codeHost),
        OAUTH_STANDIN_PORT: String(oauth),
        DISCORD_STANDIN_PORT: String(discord),
      },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const running = dev
    const record = (chunk: Buffer) => {
      const text = chunk.toString('utf8')
      if (devLog !== null) fs.writeSync(out, text)
      for (const step of DEV_STEPS)
        if (!seen.has(step.label) && text.includes(step.text)) seen.set(step.label, (Date.now() - devStart) / 1000)
    }
    running.stdout?.on('data', record)
    running.stderr?.on('data', record)
    const exited = () => running.exitCode !== null || running.signalCode !== null

    const deadline = devStart + ADMIN_TIMEOUT_SECONDS * 1000
    const url = `http://127.0.0.1:${port}/admin`
    while (outcome.adminStatus === null) {
      if (exited())
        throw new Error(`npm run dev exited (${running.exitCode ?? running.signalCode}) before /admin answered`)
      if (Date.now() > deadline) throw new Error(`/admin did not answer within ${ADMIN_TIMEOUT_SECONDS} s`)
      try {
        // Once the server listens, the first request waits for Next to compile the admin: no timeout but the deadline.
        const response = await fetch(url, {
          redirect: 'manual',
          signal: AbortSignal.timeout(Math.max(1, deadline - Date.now())),
        })
        await response.arrayBuffer()
        outcome.adminStatus = response.status
        outcome.firstAdminSeconds = (Date.now() - devStart) / 1000
      } catch {
        await sleep(250)
      }
    }
    const answered = outcome.firstAdminSeconds ?? 0
    log(`newcomer: /admin answered ${outcome.adminStatus} after ${answered.toFixed(1)} s`)
    const steps = [...seen].sort(([, a], [, b]) => a - b).map(([label, seconds]) => `${label} ${seconds.toFixed(1)} s`)
    notes.push(
      `Newcomer: \`npm run dev\` in that clone (no DATABASE_URL or other variables: the embedded PostgreSQL, a fresh database, the stand-ins; free ports; an empty TMPDIR): \`GET /admin\` answered ${outcome.adminStatus} after ${answered.toFixed(1)} s${steps.length > 0 ? ` (from its log: ${steps.join(', ')})` : ''}.`,
    )
    if (outcome.adminStatus >= 400) outcome.error = `/admin answered ${outcome.adminStatus}`
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    const devFile = path.join(workDir, 'dev.log')
    const devTail = dev && fs.existsSync(devFile) ? `\n${tail(fs.readFileSync(devFile, 'utf8'))}` : ''
    outcome.error = `${message}${devTail}`
    log(`newcomer: failed: ${outcome.error}`)
    notes.push(`Newcomer: not measured: ${message.split('\n')[0] ?? message}.`)
  } finally {
    if (dev) await stopGroup(dev)
    if (devLog !== null) fs.closeSync(devLog)
    devLog = null
    fs.rmSync(workDir, { recursive: true, force: true })
  }
  return outcome
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  void measureNewcomer((line) => console.info(`[newcomer] ${line}`)).then((outcome) => {
    console.info(JSON.stringify(outcome, null, 2))
    process.exitCode = outcome.error ? 1 : 0
  })
}

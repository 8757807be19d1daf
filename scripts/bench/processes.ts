/**
 * The bench's child processes: each in a process group of its own, so one signal to the group stops
 * the whole tree and the RSS sampler can find every member.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import path from 'node:path'

import { BUILT_SERVER, startEnv, startNodeArgs } from '../../src/process/start-command'

export type Child = { name: string; process: ChildProcess; pgid: number; logFile: string }

export const ROOT = path.resolve(import.meta.dirname, '../..')
/**
 * Starts `node --conditions=production --import tsx [nodeArgs] <script>` (as the npm scripts run Node;
 * the built server as `npm start` runs it: its Node flags, no tsx loader) in its own process group,
 * output to `logFile`. Node flags go on the command line: some (--cpu-prof) are refused in NODE_OPTIONS.
 */
export const startNode = (
  name: string,
  script: string,
  env: NodeJS.ProcessEnv,
  logFile: string,
  nodeArgs: string[] = [],
): Child => {
  const out = fs.openSync(logFile, 'a')
  const built = script === BUILT_SERVER
  const runner = built ? startNodeArgs(ROOT) : ['--conditions=production', '--import', 'tsx']
  const child = spawn(process.execPath, [...runner, ...nodeArgs, script], {
    cwd: ROOT,
    env: built ? startEnv(ROOT, env) : env,
    detached: true,
    stdio: ['ignore', out, out],
  })
  fs.closeSync(out)
  if (child.pid === undefined) throw new Error(`${name} did not start`)
  return { name, process: child, pgid: child.pid, logFile }
}

/** Refuses ports another process listens on: a foreign server there would answer the bench's requests. */
export const requireFreePorts = async (ports: number[]): Promise<void> => {
  for (const port of ports) {
    const free = await new Promise<boolean>((resolve) => {
      const probe = net.createServer()
      probe.once('error', () => resolve(false))
      probe.listen(port, () => probe.close(() => resolve(true)))
    })
    if (!free) throw new Error(`port ${port} is in use: set BENCH_PORT to the first of ${ports.length} free ports`)
  }
}

export const logSays = (child: Child, text: string) => () =>
  Promise.resolve(fs.readFileSync(child.logFile, 'utf8').includes(text))

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const exited = (child: Child) => child.process.exitCode !== null || child.process.signalCode !== null

export const logTail = (child: Child, lines = 40): string =>
  fs.readFileSync(child.logFile, 'utf8').split('\n').slice(-lines).join('\n')

/** Waits until `ready()` holds, failing early (with the log's tail) when the process exits. */
export const waitFor = async (child: Child, ready: () => Promise<boolean>, timeoutMs: number): Promise<void> => {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (await ready().catch(() => false)) return
    if (exited(child)) throw new Error(`${child.name} exited during start-up:\n${logTail(child)}`)
    await sleep(250)
  }
  throw new Error(`${child.name} was not ready within ${timeoutMs / 1000} s:\n${logTail(child)}`)
}

const groupAlive = (pgid: number) => {
  try {
    process.kill(-pgid, 0)
    return true
  } catch {
    return false
  }
}

/** SIGTERM to the process group `pgid`, SIGKILL to whatever is left after `graceMs`. */
export const stopProcessGroup = async (pgid: number, graceMs = 20_000): Promise<void> => {
  if (!groupAlive(pgid)) return
  process.kill(-pgid, 'SIGTERM')
  const deadline = Date.now() + graceMs
  while (Date.now() < deadline && groupAlive(pgid)) await sleep(200)
  if (!groupAlive(pgid)) return
  process.kill(-pgid, 'SIGKILL')
  // Bounded: a process reparented to an init that does not reap it stays in the group as a zombie.
  const killed = Date.now() + 5_000
  while (Date.now() < killed && groupAlive(pgid)) await sleep(100)
}

/** SIGTERM to a started process's group, SIGKILL to whatever is left after `graceMs`. */
export const stopGroup = (child: Child, graceMs = 20_000): Promise<void> => stopProcessGroup(child.pgid, graceMs)

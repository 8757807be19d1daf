/**
 * Node processes of the service as production runs them (`npm start`: `node --conditions=production
 * <heap flags> dist/server/server.mjs`, built by `npm run build`; the built scripts in dist/scripts, e.g.
 * `npm run jobs`, with `--conditions=production`; a TypeScript script with `--import tsx`),
 * for the tests that need the production build (KIT_PRODUCTION_BUILD=1): their output kept, their exit
 * awaited, and a wait that fails with the output when the process dies or never gets ready.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import path from 'node:path'

import { BUILT_SERVER, startEnv, startNodeArgs } from '../../src/process/start-command'

export { BUILT_SERVER }

const root = path.resolve(import.meta.dirname, '../..')

export type NodeProcess = {
  name: string
  child: ChildProcess
  /** Settles with the exit code, or the signal that ended the process. */
  exited: Promise<number | string>
  /** Everything written to stdout and stderr so far. */
  output: () => string
}

/**
 * `node --conditions=production <args>` in the project's folder, with exactly `env`, and tsx's loader for a
 * TypeScript script; the built server (`BUILT_SERVER`) with `npm start`'s Node flags, as `npm start` runs it.
 */
export const spawnNode = (name: string, args: string[], env: NodeJS.ProcessEnv): NodeProcess => {
  const built = args[0] === BUILT_SERVER
  const typescript = args[0]?.endsWith('.ts') ?? false
  const nodeArgs = built ? startNodeArgs(root) : ['--conditions=production', ...(typescript ? ['--import', 'tsx'] : [])]
  const child = spawn(process.execPath, [...nodeArgs, ...args], {
    cwd: root,
    env: built ? startEnv(root, env) : env,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let log = ''
  const append = (chunk: Buffer) => {
    log += chunk.toString()
  }
  child.stdout.on('data', append)
  child.stderr.on('data', append)
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')),
  )
  return { name, child, exited, output: () => log }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Polls `ready` until it holds; throws with the process's output if it exits first or time runs out. */
const waitUntil = async (proc: NodeProcess, ready: () => Promise<boolean>, timeoutMs: number): Promise<void> => {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (await ready().catch(() => false)) return
    if (proc.child.exitCode !== null || proc.child.signalCode !== null)
      throw new Error(`${proc.name} exited:\n${proc.output()}`)
    await sleep(250)
  }
  throw new Error(`${proc.name} was not ready within ${timeoutMs} ms:\n${proc.output()}`)
}

/** Until `<base>/readyz` answers 200. */
export const waitForReady = (proc: NodeProcess, base: string, timeoutMs: number): Promise<void> =>
  waitUntil(
    proc,
    async () => (await fetch(`${base}/readyz`, { signal: AbortSignal.timeout(5_000) })).status === 200,
    timeoutMs,
  )

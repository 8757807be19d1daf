import { type ChildProcess, spawn } from 'node:child_process'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

export type RunningChild = { done: Promise<void>; stop: () => Promise<void> }

/**
 * Where a script of this project is, found from this module's own file, not from the working directory (which
 * a `node dist/server/server.mjs` run by hand may not have set to the project): the source is `src/process/child.ts`, next to
 * `scripts/<name>.ts` two folders up; the build puts this module in `<out>/server/`, next to
 * `<out>/scripts/<name>.mjs` (scripts/build-server.mjs).
 */
export const childScript = (name: string, form: 'source' | 'compiled', moduleUrl: string = import.meta.url): string => {
  const here = path.dirname(fileURLToPath(moduleUrl))
  return form === 'source'
    ? path.resolve(here, '../../scripts', `${name}.ts`)
    : path.resolve(here, '../scripts', `${name}.mjs`)
}

/**
 * Run a script of this project (`scripts/<name>.ts`) in a child Node process as this process runs (the
 * same Node flags, --conditions above all, docs/STARTUP.md), with this environment and this output: the
 * TypeScript source under tsx's loader when this process runs under it (`npm run dev`), else the script
 * `npm run build` compiled into dist/scripts (`npm start`: production compiles nothing at run time).
 * `done` resolves when it exits 0 and rejects otherwise; `stop` sends it SIGTERM and waits for it.
 */
export const runChild = (name: string): RunningChild => {
  const underTsx = process.execArgv.some((arg) => arg.includes('tsx'))
  const script = childScript(name, underTsx ? 'source' : 'compiled')
  const child: ChildProcess = spawn(process.execPath, [...process.execArgv, script], {
    stdio: 'inherit',
    env: process.env,
  })
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
    child.once('error', reject)
    child.once('exit', (code, signal) => resolve({ code, signal }))
  })
  return {
    done: exited.then(({ code, signal }) => {
      if (code !== 0) throw new Error(`${script} exited with ${signal ? `signal ${signal}` : `code ${code}`}`)
    }),
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
      await exited.catch(() => undefined)
    },
  }
}

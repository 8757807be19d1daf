import { type ChildProcess, spawn } from 'node:child_process'

export type RunningChild = { done: Promise<void>; stop: () => Promise<void> }

/**
 * Run a script of this project in a child Node process as this process runs (the same Node flags,
 * --conditions above all, docs/STARTUP.md; and tsx's loader), with this environment and this output. `done`
 * resolves when it exits 0 and rejects otherwise; `stop` sends it SIGTERM and waits for it.
 */
export const runChild = (script: string): RunningChild => {
  // The built server (dist/server.mjs) runs without tsx; a script of the project needs its loader.
  const loader = process.execArgv.some((arg) => arg.includes('tsx')) ? [] : ['--import', 'tsx']
  const child: ChildProcess = spawn(process.execPath, [...process.execArgv, ...loader, script], { stdio: 'inherit', env: process.env })
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

import { type ChildProcess, spawn } from 'node:child_process'

export type RunningChild = { done: Promise<void>; stop: () => Promise<void> }

/**
 * Run a script of this project (`scripts/<name>.ts`) in a child Node process as this process runs (the
 * same Node flags, --conditions above all, docs/STARTUP.md), with this environment and this output: the
 * TypeScript source under tsx's loader when this process runs under it (`npm run dev`), else the script
 * `npm run build` compiled into dist/scripts (`npm start`: production compiles nothing at run time).
 * `done` resolves when it exits 0 and rejects otherwise; `stop` sends it SIGTERM and waits for it.
 */
export const runChild = (name: string): RunningChild => {
  const underTsx = process.execArgv.some((arg) => arg.includes('tsx'))
  const script = underTsx ? `scripts/${name}.ts` : `dist/scripts/${name}.mjs`
  const child: ChildProcess = spawn(process.execPath, [...process.execArgv, script], { stdio: 'inherit', env: process.env })
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

/**
 * `npm start`'s Node flags are production configuration (the heap settings of docs/PERFORMANCE.md,
 * "Memory"). The production-build tests, the browser scenarios, the bench and the smoke test read them
 * from package.json through `startNodeArgs`; these tests pin what they read and that this Node takes them.
 */
import { execFile } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'

import { describe, expect, it } from 'vitest'

import { BUILT_SERVER, startCommand, startEnv, startNodeArgs } from '../../src/process/start-command'

const run = promisify(execFile)
const root = path.resolve(import.meta.dirname, '../..')

const withStartScript = (start: string): string => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kit-start-'))
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ scripts: { start } }))
  return dir
}

describe('startNodeArgs', () => {
  it("reads npm start's flags: the production conditions and the heap settings", () => {
    const flags = startNodeArgs(root)
    expect(flags[0]).toBe('--conditions=production')
    expect(flags).toContain('--max-semi-space-size=8')
    expect(flags).toContain('--heap-growing-percent=15')
    // No hard heap limit: a burst of page renders must not end the process (docs/PERFORMANCE.md).
    expect(flags.some((flag) => flag.startsWith('--max-old-space-size'))).toBe(false)
  })

  it('this Node accepts every one of them, and the process sees them', async () => {
    const flags = startNodeArgs(root).filter((flag) => !flag.startsWith('--conditions'))
    const code = 'console.log(JSON.stringify(process.execArgv))'
    const { stdout } = await run(process.execPath, [...flags, '-e', code], { cwd: root })
    expect(JSON.parse(stdout)).toEqual([...flags, '-e', code])
  })

  it('refuses a start script of another shape instead of dropping the flags or the variables', () => {
    expect(() => startNodeArgs(withStartScript('node server.js'))).toThrow(/start script is not/)
    expect(() => startNodeArgs(withStartScript(`node --import tsx foo ${BUILT_SERVER}`))).toThrow(/start script is not/)
    expect(() => startNodeArgs(withStartScript(`cd somewhere && node --a ${BUILT_SERVER}`))).toThrow(
      /start script is not/,
    )
    expect(startCommand(withStartScript(`NODE_ENV=production A_B=x=1 exec node --a=1 --b ${BUILT_SERVER}`))).toEqual({
      env: { NODE_ENV: 'production', A_B: 'x=1' },
      nodeArgs: ['--a=1', '--b'],
    })
  })

  it("reads npm start's variables: production, and glibc's malloc kept to two arenas (docs/PERFORMANCE.md)", () => {
    expect(startCommand(root).env).toEqual({ NODE_ENV: 'production', MALLOC_ARENA_MAX: '2' })
    // They win over the caller's, as the script's own assignments do.
    expect(startEnv(root, { NODE_ENV: 'development', MALLOC_ARENA_MAX: '8', PORT: '1' })).toEqual({
      NODE_ENV: 'production',
      MALLOC_ARENA_MAX: '2',
      PORT: '1',
    })
  })

  it('npm start itself hands the server those variables and flags', async () => {
    // The start script with the server swapped for a probe that prints what the process got.
    const probe = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'kit-probe-')), 'server.mjs')
    fs.writeFileSync(
      probe,
      'console.log(JSON.stringify({ env: { NODE_ENV: process.env.NODE_ENV, MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX }, execArgv: process.execArgv }))',
    )
    const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
      scripts: { start: string }
    }
    const { stdout } = await run('sh', ['-c', manifest.scripts.start.replace(BUILT_SERVER, probe)], {
      cwd: root,
      env: { PATH: process.env.PATH } as unknown as NodeJS.ProcessEnv,
    })
    expect(JSON.parse(stdout)).toEqual({ env: startCommand(root).env, execArgv: startNodeArgs(root) })
  })
})

describe('the command docs/OPERATIONS.md gives production (the server without npm)', () => {
  it("is npm start's: the same variables, flags and server", () => {
    const docs = fs.readFileSync(path.join(process.cwd(), 'docs/OPERATIONS.md'), 'utf8')
    const block = /```sh\n(NODE_ENV=production [^`]*?dist\/server\/server\.mjs)\n```/.exec(docs)?.[1]
    expect(block, 'the command block in docs/OPERATIONS.md').toBeDefined()
    const documented = block!.replace(/\\\n\s*/g, '').split(/\s+/)
    const { env, nodeArgs } = startCommand(process.cwd())
    expect(documented).toEqual([
      ...Object.entries(env).map(([name, value]) => `${name}=${value}`),
      'exec',
      'node',
      ...nodeArgs,
      BUILT_SERVER,
    ])
  })
})

import { execFile } from 'node:child_process'
import { promisify } from 'node:util'

import { describe, expect, it } from 'vitest'

/**
 * PATCH type-generator-stub (docs/PATCHES.md): a server loads Payload's database adapter, which imports
 * `payload/node` and so the type generator's JSON Schema compiler, Prettier and lodash. With the stub the
 * compiler is never loaded (the generator is still exported: calling it says where types come from).
 */
const run = promisify(execFile)
const probe = async (stubbed: boolean) => {
  const script = `
    ${stubbed ? "const { stubTypeGenerator } = await import('./src/process/type-generator-stub.ts'); if (!stubTypeGenerator()) throw new Error('no registerHooks');" : ''}
    const node = await import('payload/node')
    const { createRequire } = await import('node:module')
    const loaded = Object.keys(createRequire(import.meta.url).cache).filter((file) => /json-schema-to-typescript|[\\\\/]prettier[\\\\/]/.test(file))
    console.log(JSON.stringify({ loaded: loaded.length, generateTypes: typeof node.generateTypes }))`
  const { stdout } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: process.cwd(),
  })
  return JSON.parse(stdout.trim().split('\n').pop()!) as { loaded: number; generateTypes: string }
}

describe('the type generator in a running server', () => {
  it('without the stub, payload/node loads the JSON Schema compiler and Prettier', async () => {
    expect((await probe(false)).loaded).toBeGreaterThan(0)
  }, 60_000)

  it('with it, neither is loaded', async () => {
    expect(await probe(true)).toEqual({ loaded: 0, generateTypes: 'function' })
  }, 60_000)
})

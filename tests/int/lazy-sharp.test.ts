import { execFile } from 'node:child_process'
import path from 'node:path'
import { promisify } from 'node:util'

import { describe, expect, it } from 'vitest'

/**
 * sharp loads on the first image Payload resizes (src/content/sharp.ts), not with the config: a process
 * of its own (this test's workers may have loaded sharp already) loads payload.config.ts, and libvips
 * is mapped only once the config's `sharp` is called, which still resizes.
 */
const ROOT = path.resolve(import.meta.dirname, '../..')

const PROBE = `
import fs from 'node:fs'
const libvips = () => fs.readFileSync('/proc/self/maps', 'utf8').includes('libvips')
const { default: config } = await import('./payload.config.ts')
const resolved = await config
const before = libvips()
const png = await resolved.sharp({ create: { width: 40, height: 20, channels: 3, background: '#4f46e5' } }).png().toBuffer()
const resized = await resolved.sharp(png).resize(10).toBuffer({ resolveWithObject: true })
console.log(JSON.stringify({ before, after: libvips(), width: resized.info.width, height: resized.info.height }))
`

describe('sharp', () => {
  it('is not loaded with the config, and resizes once called', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--conditions=production', '--import', 'tsx', '--input-type=module', '-e', PROBE],
      { cwd: ROOT, env: { ...process.env, NODE_ENV: 'development', LOG_LEVEL: 'silent' }, timeout: 120_000 },
    )
    const result = JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, unknown>
    expect(result).toEqual({ before: false, after: true, width: 10, height: 5 })
  }, 150_000)
})

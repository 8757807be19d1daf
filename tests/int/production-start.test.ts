import { spawn } from 'node:child_process'
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

import { describe, expect, it } from 'vitest'

import { COMPLETE_PRODUCTION_ENV as COMPLETE } from '../support/production-env'

const root = path.resolve(import.meta.dirname, '../..')

/**
 * Start `server.ts` in production from an empty folder (no .env) with exactly these variables; its log
 * is what it wrote on stdout and stderr.
 */
const startProduction = (vars: Record<string, string>) =>
  new Promise<{ code: number | null; log: string }>((resolve) => {
    const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'kit-prod-'))
    const child = spawn(
      process.execPath,
      ['--conditions=production', '--import', import.meta.resolve('tsx'), path.join(root, 'server.ts')],
      {
        cwd,
        env: { PATH: process.env.PATH ?? '', HOME: os.tmpdir(), NODE_ENV: 'production', ...vars },
      },
    )
    let log = ''
    const append = (chunk: Buffer) => {
      log += chunk.toString()
    }
    child.stdout.on('data', append)
    child.stderr.on('data', append)
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000)
    child.on('close', (code) => {
      clearTimeout(timer)
      fs.rmSync(cwd, { recursive: true, force: true })
      resolve({ code, log })
    })
  })

describe('production start-up checks', () => {
  it('refuses to start with nothing configured and names every missing variable', async () => {
    const { code, log } = await startProduction({})
    expect(code).toBe(1)
    for (const name of Object.keys(COMPLETE)) {
      expect(log).toContain(`${name} is not set`)
    }
    // One JSON line, at fatal, from the server.
    const lines = log
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
    expect(lines).toEqual([
      expect.objectContaining({
        level: 'fatal',
        name: 'server',
        msg: expect.stringContaining('refusing to start in production'),
      }),
    ])
  })

  it.each(Object.keys(COMPLETE))('refuses to start without %s alone, naming only it', async (name) => {
    const vars: Record<string, string> = { ...COMPLETE }
    delete vars[name]
    const { code, log } = await startProduction(vars)
    expect(code).toBe(1)
    expect(log).toContain(`${name} is not set`)
    for (const other of Object.keys(COMPLETE).filter((key) => key !== name)) {
      expect(log).not.toContain(`${other} is not set`)
    }
  })

  it('refuses test and live keys mixed', async () => {
    const { code, log } = await startProduction({
      ...COMPLETE,
      PUBLIC_PAYMENT_PUBLISHABLE_KEY: 'pk_test_0123456789abcdef',
    })
    expect(code).toBe(1)
    expect(log).toContain('of different modes')
    expect(log).not.toContain('sk_live_0123456789abcdef')
  })

  it('refuses a short secret and never prints it', async () => {
    const { code, log } = await startProduction({ ...COMPLETE, PAYLOAD_SECRET: 'short-secret-value' })
    expect(code).toBe(1)
    expect(log).toContain('PAYLOAD_SECRET is too short (18 characters, need at least 32)')
    expect(log).not.toContain('short-secret-value')
  })

  it('refuses a license signing key that is not an Ed25519 private key, and never prints it', async () => {
    const rsa = crypto
      .generateKeyPairSync('rsa', { modulusLength: 2048 })
      .privateKey.export({ type: 'pkcs8', format: 'pem' }) as string
    const { code, log } = await startProduction({ ...COMPLETE, LICENSE_SIGNING_KEY: rsa })
    expect(code).toBe(1)
    expect(log).toContain('LICENSE_SIGNING_KEY is not an Ed25519 private key (PKCS#8 PEM or private JWK)')
    expect(log).not.toContain(rsa.split('\n')[1])
    for (const other of Object.keys(COMPLETE)) expect(log).not.toContain(`${other} is not set`)
  })
})

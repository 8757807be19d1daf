/**
 * One write path per aggregate. A license, a seat, an activation or a payment is written either through
 * Payload (whose collection hooks send the outbound webhooks and keep the rules) or in SQL by the one
 * module that owns the table, which sends the same events itself. A raw INSERT, UPDATE or DELETE of one
 * of these tables anywhere else, or Payload's adapter called directly on them (no hooks), would write
 * without its events: this fails until the write moves into the owner.
 */
import fs from 'node:fs'
import path from 'node:path'

import { describe, expect, it } from 'vitest'

const ROOT = path.resolve(import.meta.dirname, '../..')

/** Each guarded table and the one file allowed to write it in SQL (null: Payload only). */
const OWNERS: Record<string, string | null> = {
  licenses: 'src/licensing/store.ts',
  license_activations: 'src/licensing/activation-store.ts',
  license_seats: 'src/teams/seats.ts',
  one_time_purchases: 'src/billing/store.ts',
  payment_history: null,
  user_subscriptions: null,
  license_changes: null,
}

const SOURCES = ['src', 'endpoints', 'plugins', 'collections', 'scripts', 'server.ts', 'payload.config.ts']

const files = (entry: string): string[] => {
  // Installed packages are not the project's code (the bench installs its tools under scripts/bench/tools).
  if (path.basename(entry) === 'node_modules') return []
  const full = path.join(ROOT, entry)
  if (fs.statSync(full).isDirectory()) return fs.readdirSync(full).flatMap((name) => files(path.join(entry, name)))
  return /\.(?:ts|tsx|mts|mjs)$/.test(entry) ? [entry] : []
}

const TABLES = Object.keys(OWNERS).join('|')
/** `INSERT INTO ${licenses}`, `UPDATE ${licenses}`, `DELETE FROM ${licenses}`, the quoted names too. */
const RAW_WRITE = new RegExp(
  `(?:INSERT\\s+INTO|UPDATE|DELETE\\s+FROM)\\s+(?:\\$\\{(${TABLES})\\}|"?(${TABLES})"?\\b)`,
  'g',
)
/** Payload's adapter (`payload.db.updateOne({collection: 'licenses'` ...): a write without hooks. */
const ADAPTER_WRITE = new RegExp(
  `\\.db\\.(?:create|update\\w*|delete\\w*|upsert)\\(\\s*\\{[^}]*?collection:\\s*'(${TABLES.replace(/_/g, '[_-]')})'`,
  'g',
)

const writes = () =>
  SOURCES.flatMap(files).flatMap((file) => {
    const text = fs.readFileSync(path.join(ROOT, file), 'utf8')
    const raw = [...text.matchAll(RAW_WRITE)].map((match) => ({ file, table: match[1] ?? match[2]!, how: 'sql' }))
    const adapter = [...text.matchAll(ADAPTER_WRITE)].map((match) => ({ file, table: match[1]!, how: 'adapter' }))
    return [...raw, ...adapter]
  })

describe('one write path per aggregate', () => {
  const found = writes()

  it('finds the owners’ own writes (the scan itself works)', () => {
    for (const [table, owner] of Object.entries(OWNERS)) {
      if (owner)
        expect(
          found.some((write) => write.table === table && write.file === owner),
          table,
        ).toBe(true)
    }
  })

  it('writes each guarded table in SQL only in its owner, and never through the adapter', () => {
    const strays = found
      .filter((write) => write.how === 'adapter' || OWNERS[write.table] !== write.file)
      .map((write) => `${write.file}: ${write.how} write of ${write.table}`)
    expect(strays, 'move the write into the table’s owner (or through Payload), which sends its events').toEqual([])
  })

  it('would catch a stray write', () => {
    const sample = 'await execute(req, sql`UPDATE ${licenses} SET ${bare(licenses.status)} = ...`)'
    expect([...sample.matchAll(RAW_WRITE)].map((match) => match[1])).toEqual(['licenses'])
    const adapter = "await payload.db.updateOne({ collection: 'license_seats', where: {}, data: {} })"
    expect([...adapter.matchAll(ADAPTER_WRITE)].map((match) => match[1])).toEqual(['license_seats'])
  })
})

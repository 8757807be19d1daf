import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

import { getTableName, is, Table } from '@payloadcms/db-postgres/drizzle'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

import * as generated from '../../src/db/schema.generated'
import { usePayload } from '../support/payload'

const payload = usePayload()

const ROOT = path.resolve(import.meta.dirname, '../..')
const COMMITTED = path.join(ROOT, 'src/db/schema.generated.ts')

/** Where the service's raw SQL lives (the blog's .mdx prose is not code). */
const SOURCES = ['src', 'scripts', 'collections', 'plugins', 'endpoints', 'server.ts']

const walk = (entry: string): string[] => {
  if (!fs.statSync(entry).isDirectory()) return /\.tsx?$/.test(entry) ? [entry] : []
  return fs.readdirSync(entry).flatMap((name) => walk(path.join(entry, name)))
}

/** The literal text of every sql`...` template in `file` (the parts between its interpolations). */
const sqlTexts = (file: string): { line: number; text: string }[] => {
  const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true)
  const found: { line: number; text: string }[] = []
  const visit = (node: ts.Node) => {
    if (ts.isTaggedTemplateExpression(node) && node.tag.getText(source) === 'sql') {
      const template = node.template
      const parts = ts.isNoSubstitutionTemplateLiteral(template)
        ? [template.text]
        : [template.head.text, ...template.templateSpans.map((span) => span.literal.text)]
      const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1
      for (const text of parts) found.push({ line, text })
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

const GENERATED_TABLES = new Set<string>(
  Object.values(generated).flatMap((value) => (is(value, Table) ? [getTableName(value)] : [])),
)

/** A generated table named by hand after FROM, JOIN, INTO or UPDATE. */
const handNamedTables = (text: string): string[] =>
  [...text.matchAll(/\b(?:FROM|JOIN|INTO|UPDATE)\s+"?([a-z_][a-z0-9_]*)"?/gi)]
    .map((match) => match[1]!)
    .filter((name) => GENERATED_TABLES.has(name))

describe('the generated database schema', () => {
  it('src/db/schema.generated.ts is what `npm run generate:db-schema` writes for the config now', async () => {
    const { generateSchema } = payload().db
    expect(generateSchema).toBeTypeOf('function')
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kit-db-schema-'))
    try {
      const fresh = path.join(dir, 'schema.generated.ts')
      await generateSchema!.call(payload().db, { log: false, outputFile: fresh })
      expect(
        fs.readFileSync(fresh, 'utf8'),
        'src/db/schema.generated.ts is stale: run `npm run generate:db-schema`',
      ).toBe(fs.readFileSync(COMMITTED, 'utf8'))
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })

  it('raw SQL names the tables through it, never by hand', () => {
    expect(GENERATED_TABLES.size).toBeGreaterThan(40)
    const byHand = SOURCES.flatMap((entry) => walk(path.join(ROOT, entry)))
      .filter((file) => file !== COMMITTED)
      .flatMap((file) =>
        sqlTexts(file).flatMap(({ line, text }) =>
          handNamedTables(text).map((table) => `${path.relative(ROOT, file)}:${line} names ${table}`),
        ),
      )
    expect(byHand).toEqual([])
  })

  it('the scan finds a table named by hand (proof on sample statements)', () => {
    expect(handNamedTables('SELECT id FROM licenses l JOIN "plans" p ON p.id = l.plan_id')).toEqual([
      'licenses',
      'plans',
    ])
    expect(handNamedTables('INSERT INTO analytics_events (name) VALUES ($1)')).toEqual(['analytics_events'])
    expect(handNamedTables('UPDATE payload_jobs SET processing = true')).toEqual(['payload_jobs'])
    // A CTE's name is no table; an interpolated table leaves only the keyword in the template's text.
    expect(handNamedTables('WITH recorded AS (SELECT 1) SELECT count(*) FROM recorded')).toEqual([])
    expect(handNamedTables('UPDATE ')).toEqual([])
  })
})

import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'

import pg from 'pg'

/** A connection string for another database on the same server. */
export const withDatabase = (url: string, database: string): string => {
  const parsed = new URL(url)
  parsed.pathname = `/${database}`
  return parsed.toString()
}

export const adminQuery = async (adminUrl: string, sql: string): Promise<pg.QueryResult> => {
  const client = new pg.Client({ connectionString: adminUrl })
  await client.connect()
  try {
    return await client.query(sql)
  } finally {
    await client.end()
  }
}

/** The template's name follows the migrations, so a schema change builds a new template. */
export const templateName = (rootDir: string): string => {
  const dir = path.join(rootDir, 'migrations')
  const hash = crypto.createHash('sha256')
  for (const file of fs.readdirSync(dir).sort()) hash.update(file).update(fs.readFileSync(path.join(dir, file)))
  return `kit_test_template_${hash.digest('hex').slice(0, 12)}`
}

export const ident = (name: string) => `"${name.replace(/"/g, '""')}"`

import crypto from 'node:crypto'

import { afterAll, inject } from 'vitest'

import { adminQuery, ident, withDatabase } from './databases'

/**
 * Before each test file: a fresh database cloned from the migrated template, exported as
 * DATABASE_URL (with synchronous_commit off) before anything imports the Payload config. Dropped when
 * the file is done.
 */
const adminUrl = inject('adminDatabaseUrl')
const template = inject('templateDatabase')
const database = `kit_test_${process.pid}_${crypto.randomBytes(4).toString('hex')}`

await adminQuery(adminUrl, `CREATE DATABASE ${ident(database)} TEMPLATE ${ident(template)}`)
// No wait for the WAL to reach the disk at each commit: a test's database is thrown away with the file, and
// a crash of the server loses at most the last moment's commits, never a committed row's consistency.
const fileUrl = new URL(withDatabase(adminUrl, database))
fileUrl.searchParams.set('options', '-c synchronous_commit=off')
process.env.DATABASE_URL = fileUrl.toString()
process.env.TEST_DATABASE_NAME = database

afterAll(async () => {
  await adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${ident(database)} WITH (FORCE)`)
})

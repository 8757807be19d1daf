import crypto from 'node:crypto'

import { afterAll, inject } from 'vitest'

import { adminQuery, ident, withDatabase } from './databases'

/**
 * Before each test file: a fresh database cloned from the migrated template, exported as
 * DATABASE_URL before anything imports the Payload config. Dropped when the file is done.
 */
const adminUrl = inject('adminDatabaseUrl')
const template = inject('templateDatabase')
const database = `kit_test_${process.pid}_${crypto.randomBytes(4).toString('hex')}`

await adminQuery(adminUrl, `CREATE DATABASE ${ident(database)} TEMPLATE ${ident(template)}`)
process.env.DATABASE_URL = withDatabase(adminUrl, database)
process.env.TEST_DATABASE_NAME = database

afterAll(async () => {
  await adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${ident(database)} WITH (FORCE)`)
})

import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'

import pg from 'pg'
import { afterAll, describe, expect, it } from 'vitest'

import { type EmbeddedDatabase, startEmbeddedPostgres } from '../../src/db/embedded'
import { freePort } from '../support/net'

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'kit-embedded-'))
// mkdtemp makes the folder private; the server runs as the postgres user when we are root.
fs.chmodSync(root, 0o755)
const started: EmbeddedDatabase[] = []
afterAll(async () => {
  for (const database of started) await database.stop()
  fs.rmSync(root, { recursive: true, force: true })
})

const selectOne = async (url: string) => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return (await client.query<{ one: number }>('SELECT 1 AS one')).rows[0]?.one
  } finally {
    await client.end()
  }
}

describe('embedded PostgreSQL', () => {
  const dataDir = path.join(root, 'data')
  let port = 0
  const logs: string[] = []
  const options = () => ({ dataDir, port, database: 'kit', log: (line: string) => logs.push(line) })

  it('starts a real server and creates the database', async () => {
    port = await freePort()
    const database = await startEmbeddedPostgres(options())
    started.push(database)
    expect(database.reused).toBe(false)
    expect(database.url).toBe(`postgres://postgres:postgres@127.0.0.1:${port}/kit`)
    expect(await selectOne(database.url)).toBe(1)
    expect(fs.existsSync(path.join(dataDir, 'postgres', 'PG_VERSION'))).toBe(true)
  })

  it('reuses the server that already runs on its data dir, and leaves it running when done', async () => {
    const again = await startEmbeddedPostgres(options())
    expect(again.reused).toBe(true)
    await again.stop()
    expect(await selectOne(again.url)).toBe(1)
    expect(logs.some((line) => line.includes('reusing the embedded PostgreSQL'))).toBe(true)
  })

  it('stops the server it started', async () => {
    const database = started.pop()!
    await database.stop()
    await expect(selectOne(database.url)).rejects.toThrow(/ECONNREFUSED/)
    expect(fs.existsSync(path.join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false)
  })

  it('recovers from a stale lock file whose pid is no longer a PostgreSQL server', async () => {
    // A pid that is alive but is not postgres: this test runner.
    fs.writeFileSync(path.join(dataDir, 'postgres', 'postmaster.pid'), `${process.pid}\n${dataDir}\n0\n${port}\n`)
    const database = await startEmbeddedPostgres(options())
    started.push(database)
    expect(await selectOne(database.url)).toBe(1)
    expect(logs.some((line) => line.includes(`removed a stale lock file left by pid ${process.pid}`))).toBe(true)
    await database.stop()
    started.pop()
  })

  it('names the real cause when the port is taken by another program', async () => {
    const blocker = net.createServer()
    const busyPort = await freePort()
    await new Promise<void>((resolve) => blocker.listen(busyPort, '127.0.0.1', resolve))
    try {
      await expect(
        startEmbeddedPostgres({ dataDir: path.join(root, 'other'), port: busyPort, database: 'kit' }),
      ).rejects.toThrow(`port ${busyPort} is already in use by another program`)
    } finally {
      blocker.close()
    }
  })

  it.runIf(os.userInfo().uid === 0)('as root, explains a data dir the postgres user cannot reach', async () => {
    const hidden = path.join(root, 'private')
    fs.mkdirSync(hidden, { mode: 0o700 })
    fs.chmodSync(hidden, 0o700)
    await expect(
      startEmbeddedPostgres({ dataDir: path.join(hidden, 'data'), port: await freePort(), database: 'kit' }),
    ).rejects.toThrow(`${hidden} is not searchable by other users`)
  })
})

/**
 * inTransaction resolves only when PostgreSQL confirmed the COMMIT. A deferred unique constraint makes
 * the COMMIT itself fail, deterministically: Payload's own begin/commit report that as success (the
 * adapter swallows it), which once let a webhook answer 200 for an event whose effects were rolled back.
 */
import { commitTransaction, createLocalReq, initTransaction } from 'payload'
import { beforeAll, describe, expect, it } from 'vitest'

import { later, runWithLaterWrites, statement } from '../../src/db/statements'
import { execute, executeOn, inTransaction, sql } from '../../src/db/transaction'
import { createUser, usePayload } from '../support/payload'
import { recordQueries } from '../support/queries'

const payload = usePayload()

beforeAll(async () => {
  await executeOn(
    payload(),
    undefined,
    sql`CREATE TABLE commit_probe (id integer, CONSTRAINT commit_probe_once UNIQUE (id) DEFERRABLE INITIALLY DEFERRED)`,
  )
})

const rows = async () =>
  (await executeOn<{ n: string }>(payload(), undefined, sql`SELECT count(*) AS n FROM commit_probe`))[0]!.n

describe('inTransaction', () => {
  it("Payload's own commit reports a COMMIT that failed as done (why inTransaction does not use it)", async () => {
    const req = await createLocalReq({}, payload())
    await initTransaction(req)
    await execute(req, sql`INSERT INTO commit_probe (id) VALUES (1), (1)`)
    await expect(commitTransaction(req)).resolves.toBeUndefined()
    expect(await rows()).toBe('0')
  })

  it('rejects when the COMMIT fails, and nothing of the work is kept', async () => {
    const failure = await inTransaction(payload(), (req) =>
      execute(req, sql`INSERT INTO commit_probe (id) VALUES (2), (2)`),
    ).then(
      () => null,
      (error: unknown) => error as Error & { cause?: { constraint?: string } },
    )
    expect(failure?.message).toMatch(/Failed query: commit/)
    expect(failure?.cause?.constraint).toBe('commit_probe_once')
    expect(await rows()).toBe('0')
  })

  it("commits the work, Payload's operations included, and resolves with its value", async () => {
    const owner = await createUser(payload(), 'customer')
    const value = await inTransaction(payload(), async (req) => {
      await execute(req, sql`INSERT INTO commit_probe (id) VALUES (3)`)
      await req.payload.update({
        collection: 'users',
        id: owner.user.id,
        data: { name: 'Committed' },
        overrideAccess: true,
        req,
      })
      return 'done'
    })
    expect(value).toBe('done')
    expect(await rows()).toBe('1')
    expect((await payload().findByID({ collection: 'users', id: owner.user.id })).name).toBe('Committed')
  })

  it("rolls back everything, Payload's operations included, when the work throws", async () => {
    const owner = await createUser(payload(), 'customer')
    await expect(
      inTransaction(payload(), async (req) => {
        await req.payload.update({
          collection: 'users',
          id: owner.user.id,
          data: { name: 'Rolled back' },
          overrideAccess: true,
          req,
        })
        await execute(req, sql`INSERT INTO commit_probe (id) VALUES (4)`)
        throw new Error('work failed')
      }),
    ).rejects.toThrow('work failed')
    expect(await rows()).toBe('1')
    expect((await payload().findByID({ collection: 'users', id: owner.user.id })).name).not.toBe('Rolled back')
  })

  it("rolls back when an operation inside aborted the transaction, even if the work caught the operation's error", async () => {
    const owner = await createUser(payload(), 'customer')
    await expect(
      inTransaction(payload(), async (req) => {
        await execute(req, sql`INSERT INTO commit_probe (id) VALUES (5)`)
        // An update Payload refuses (an email that is not one): the operation rolls the transaction back.
        await req.payload
          .update({
            collection: 'users',
            id: owner.user.id,
            data: { email: 'not an email' },
            overrideAccess: true,
            req,
          })
          .catch(() => undefined)
        return 'carried on'
      }),
    ).rejects.toThrow(/aborted/)
    expect(await rows()).toBe('1')
  })
})

describe('writes kept for later (src/db/statements.ts)', () => {
  const PROBE = statement<'id'>((p) => sql`INSERT INTO commit_probe (id) VALUES (${p.id}::integer)`)
  const COUNT = statement<'from', { n: string }>(
    (p) => sql`SELECT count(*) AS n FROM commit_probe WHERE id >= ${p.from}::integer`,
  )
  const probes = async (from: number) =>
    (await executeOn(payload(), undefined, sql`SELECT count(*) AS n FROM commit_probe WHERE id >= ${from}`))[0]!.n

  it('go out with the last statement, in one round trip, and commit with the transaction', async () => {
    const statements = await recordQueries(payload(), () =>
      inTransaction(
        payload(),
        async (req) => {
          await later(req, PROBE, { id: 20 })
          await later(req, PROBE, { id: 21 })
          // Not sent yet: the transaction's own read does not see them.
          expect(
            (await execute<{ n: string }>(req, sql`SELECT count(*) AS n FROM commit_probe WHERE id >= 20`))[0]!.n,
          ).toBe('0')
          const [last] = await runWithLaterWrites(req, COUNT, { from: 20 })
          // The last statement runs with the same snapshot as the writes: it does not see them either.
          expect(last!.n).toBe('0')
        },
        { laterWrites: true },
      ),
    )
    expect(statements.filter((text) => /^WITH w0 AS \(INSERT INTO commit_probe/.test(text.trim()))).toHaveLength(1)
    expect(statements.filter((text) => /INSERT INTO commit_probe/.test(text))).toHaveLength(1)
    expect(await probes(20)).toBe('2')
  })

  it('left over at the end go out before the COMMIT; rolled back with the work', async () => {
    await inTransaction(payload(), (req) => later(req, PROBE, { id: 30 }), { laterWrites: true })
    expect(await probes(30)).toBe('1')
    await expect(
      inTransaction(
        payload(),
        async (req) => {
          await later(req, PROBE, { id: 40 })
          throw new Error('work failed')
        },
        { laterWrites: true },
      ),
    ).rejects.toThrow('work failed')
    expect(await probes(40)).toBe('0')
  })

  it('run at once in a transaction that keeps none, and outside any', async () => {
    await inTransaction(payload(), async (req) => {
      await later(req, PROBE, { id: 50 })
      expect(
        (await execute<{ n: string }>(req, sql`SELECT count(*) AS n FROM commit_probe WHERE id >= 50`))[0]!.n,
      ).toBe('1')
    })
    await later({ payload: payload() } as never, PROBE, { id: 60 })
    expect(await probes(50)).toBe('2')
  })
})

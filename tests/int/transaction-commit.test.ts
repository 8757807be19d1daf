/**
 * inTransaction resolves only when PostgreSQL confirmed the COMMIT. A deferred unique constraint makes
 * the COMMIT itself fail, deterministically: Payload's own begin/commit report that as success (the
 * adapter swallows it), which once let a webhook answer 200 for an event whose effects were rolled back.
 */
import { commitTransaction, createLocalReq, initTransaction } from 'payload'
import { beforeAll, describe, expect, it } from 'vitest'

import { execute, executeOn, inTransaction, sql } from '../../src/db/transaction'
import { createUser, usePayload } from '../support/payload'

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

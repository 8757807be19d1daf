import './../support/billing-env'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { codeHost, PRICES } from '../support/billing-env'
import { buy, rows, seedStandInPlans } from '../support/billing'
import { api, createUser, type TestUser, usePayload } from '../support/payload'

const payload = usePayload()

const LOGINS = ['kit-slow-a', 'kit-slow-b', 'kit-slow-c', 'kit-slow-d', 'kit-slow-e', 'kit-slow-f', 'kit-write-fail']
/** Longer than a database round trip, shorter than the code host's timeout in tests (REPO_TIMEOUT_MS). */
const SLOW_MS = 600

beforeAll(async () => {
  await seedStandInPlans(payload())
  for (const login of LOGINS) codeHost.addUser(login)
})

const ultimateBuyer = async () => {
  const buyer = await createUser(payload(), 'customer')
  await buy(PRICES.ultimate, { as: buyer })
  return buyer
}
const request = (who: TestUser, username: string) => api('POST', '/repo-access', { as: who, body: { username } })
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

type Seen = { userLockFree: boolean; idleInTransaction: number }

/** From another connection: is the user's lock free, and does any connection of this database sit in an open transaction? */
const observe = async (userId: number): Promise<Seen> => {
  const client = await payload().db.pool.connect()
  try {
    const key = `repo-access:${userId}`
    const lock = await client.query<{ free: boolean }>('SELECT pg_try_advisory_lock(hashtext($1)) AS free', [key])
    const userLockFree = lock.rows[0]!.free
    if (userLockFree) await client.query('SELECT pg_advisory_unlock(hashtext($1))', [key])
    const open = await client.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state LIKE 'idle in transaction%'",
    )
    return { userLockFree, idleInTransaction: open.rows[0]!.n }
  } finally {
    client.release()
  }
}

/**
 * Slow the code host down on `path`, start `action`, and look at the database while the slowed call
 * is at the code host.
 */
const whileCodeHostAnswers = async (userId: number, method: string, path: RegExp, action: () => Promise<unknown>) => {
  codeHost.failNext({ method, path, delayMs: SLOW_MS })
  const start = codeHost.state.requests.length
  const running = action()
  let arrived = false
  for (let round = 0; round < 200 && !arrived; round += 1) {
    arrived = codeHost.state.requests.slice(start).some((entry) => entry.method === method && path.test(entry.path))
    if (!arrived) await sleep(5)
  }
  expect(arrived).toBe(true)
  const seen = await observe(userId)
  const result = await running
  codeHost.clearFailures()
  return { seen, result }
}

const noLockHeld: Seen = { userLockFree: true, idleInTransaction: 0 }

describe('no lock or transaction is held while the code host is asked', () => {
  it('POST: while the invitation is being sent', async () => {
    const buyer = await ultimateBuyer()
    const { seen, result } = await whileCodeHostAnswers(buyer.user.id, 'PUT', /\/collaborators\/kit-slow-a$/, () =>
      request(buyer, 'kit-slow-a'),
    )
    expect(seen).toEqual(noLockHeld)
    expect((result as { status: number }).status).toBe(200)
  })

  it('POST: while the replaced username is being removed', async () => {
    const buyer = await ultimateBuyer()
    await request(buyer, 'kit-slow-b')
    codeHost.accept('kit-slow-b')
    const { seen, result } = await whileCodeHostAnswers(buyer.user.id, 'DELETE', /\/collaborators\/kit-slow-b$/, () =>
      request(buyer, 'kit-slow-c'),
    )
    expect(seen).toEqual(noLockHeld)
    expect((result as { body: unknown }).body).toEqual({ status: 'pending', username: 'kit-slow-c' })
    expect(codeHost.state.collaborators.has('kit-slow-b')).toBe(false)
  })

  it('GET: while the invitation is being checked', async () => {
    const buyer = await ultimateBuyer()
    await request(buyer, 'kit-slow-d')
    codeHost.accept('kit-slow-d')
    const [row] = await rows(payload(), 'repo_access', { user: { equals: buyer.user.id } })
    await payload().update({
      collection: 'repo_access',
      id: row!.id,
      data: { lastCheckedAt: new Date(Date.now() - 120_000).toISOString() },
    })
    const { seen, result } = await whileCodeHostAnswers(buyer.user.id, 'GET', /\/collaborators\/kit-slow-d$/, () =>
      api('GET', '/repo-access', { as: buyer }),
    )
    expect(seen).toEqual(noLockHeld)
    expect((result as { body: unknown }).body).toEqual({ status: 'collaborator', username: 'kit-slow-d' })
  })

  it('the withdrawal job: while the collaborator is being removed', async () => {
    const buyer = await ultimateBuyer()
    await request(buyer, 'kit-slow-e')
    codeHost.accept('kit-slow-e')
    const [license] = await rows(payload(), 'licenses', { user: { equals: buyer.user.id } })
    const support = await createUser(payload(), 'support')
    await api('PATCH', `/licenses/${license!.id}`, {
      as: support,
      body: { override: 'revoked', overrideReason: 'abuse' },
    })
    const job = (
      await payload().find({
        collection: 'payload-jobs',
        where: { taskSlug: { equals: 'withdrawRepoAccess' } },
        limit: 100,
      })
    ).docs.find((candidate) => (candidate.input as { userId: number }).userId === buyer.user.id)
    const { seen } = await whileCodeHostAnswers(buyer.user.id, 'DELETE', /\/collaborators\/kit-slow-e$/, () =>
      payload().jobs.runByID({ id: job!.id }),
    )
    expect(seen).toEqual(noLockHeld)
    expect(codeHost.state.collaborators.has('kit-slow-e')).toBe(false)
    expect((await rows(payload(), 'repo_access', { user: { equals: buyer.user.id } }))[0]?.status).toBe('revoked')
  })
})

describe('without a lock, still one code-host check at a time', () => {
  it('concurrent GETs of a stale row: one asks the code host, the others answer the stored state', async () => {
    const buyer = await ultimateBuyer()
    // Not accepted yet: the row stays pending after a check, so only the check's turn keeps the others off the code host.
    await request(buyer, 'kit-slow-f')
    const [row] = await rows(payload(), 'repo_access', { user: { equals: buyer.user.id } })
    await payload().update({
      collection: 'repo_access',
      id: row!.id,
      data: { lastCheckedAt: new Date(Date.now() - 120_000).toISOString() },
    })
    const checks = () =>
      codeHost.state.requests.filter(
        (entry) => entry.method === 'GET' && entry.path.endsWith('/collaborators/kit-slow-f'),
      ).length
    const before = checks()
    const answers = await Promise.all(Array.from({ length: 4 }, () => api('GET', '/repo-access', { as: buyer })))
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200])
    expect(checks() - before).toBe(1)
    expect((await api('GET', '/repo-access', { as: buyer })).body).toEqual({
      status: 'pending',
      username: 'kit-slow-f',
    })
    expect(checks() - before).toBe(1)
  })
})

describe('compensation', () => {
  const failWrites = async () => {
    await payload().db.pool.query(`
      CREATE OR REPLACE FUNCTION test_fail_repo_access_write() RETURNS trigger AS $$
      BEGIN
        IF NEW.username = 'kit-write-fail' THEN RAISE EXCEPTION 'injected write failure'; END IF;
        RETURN NEW;
      END $$ LANGUAGE plpgsql;
      CREATE TRIGGER test_fail_repo_access_write BEFORE INSERT OR UPDATE ON repo_access
        FOR EACH ROW EXECUTE FUNCTION test_fail_repo_access_write();`)
  }
  afterAll(async () => {
    await payload().db.pool.query('DROP TRIGGER IF EXISTS test_fail_repo_access_write ON repo_access')
  })

  it('an invitation sent but not recorded (the write failed) is withdrawn, and the username is free again', async () => {
    const buyer = await ultimateBuyer()
    await failWrites()
    const failed = await request(buyer, 'kit-write-fail')
    expect(failed.status).toBe(500)
    expect(failed.body.errors[0].code).toBe('internal_error')
    // The code host was asked...
    expect(
      codeHost.state.requests.some(
        (entry) => entry.method === 'PUT' && entry.path.endsWith('/collaborators/kit-write-fail'),
      ),
    ).toBe(true)
    // ...and what it was asked is undone.
    expect([...codeHost.state.invitations.values()].map((invitation) => invitation.login)).not.toContain(
      'kit-write-fail',
    )
    expect(await rows(payload(), 'repo_access', { user: { equals: buyer.user.id } })).toHaveLength(0)
    expect(await rows(payload(), 'repo_usernames', { usernameKey: { equals: 'kit-write-fail' } })).toHaveLength(0)
  })
})

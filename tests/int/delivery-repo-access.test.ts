import './../support/billing-env'

import { beforeAll, describe, expect, it } from 'vitest'

import { codeHost, codeHostClock, PRICES, standIn } from '../support/billing-env'
import { buy, rows, seedStandInPlans } from '../support/billing'
import { api, createUser, type TestUser, usePayload } from '../support/payload'

const payload = usePayload()

beforeAll(async () => {
  await seedStandInPlans(payload())
  for (const login of [
    'kit-user-c',
    'kit-user-d',
    'kit-user-e',
    'kit-user-f',
    'kit-user-g',
    'kit-user-h',
    'kit-user-i',
    'kit-user-j',
    'kit-user-k',
    'kit-revoke',
    'kit-refund',
    'kit-fail-1',
    'kit-fail-2',
    'kit-fail-3',
    'kit-fail-4',
    'kit-fail-5',
  ]) {
    codeHost.addUser(login)
  }
})

const ultimateBuyer = async () => {
  const buyer = await createUser(payload(), 'customer')
  const purchase = await buy(PRICES.ultimate, { as: buyer })
  return { buyer, purchase }
}
const request = (who: TestUser | null, username: unknown) =>
  api('POST', '/repo-access', { as: who, body: { username } })
const status = (who: TestUser | null) => api('GET', '/repo-access', { as: who })
const rowOf = async (user: TestUser) => (await rows(payload(), 'repo_access', { user: { equals: user.user.id } }))[0]
/** Make the next GET consult the code host (it does so at most once a minute). */
const ageCheck = async (user: TestUser) => {
  const row = await rowOf(user)
  await payload().update({
    collection: 'repo_access',
    id: row!.id,
    data: { lastCheckedAt: new Date(Date.now() - 120_000).toISOString() },
  })
}
const codeHostCalls = () => codeHost.state.requests.length

describe('who may ask', () => {
  it('401 anonymous; 403 plan_required for standard, pro and no license', async () => {
    expect((await request(null, 'octocat')).status).toBe(401)
    expect((await status(null)).status).toBe(401)
    for (const priceId of [PRICES.standard, PRICES.proMonthly, null]) {
      const user = await createUser(payload(), 'customer')
      if (priceId) await buy(priceId, { as: user })
      const before = codeHostCalls()
      const post = await request(user, 'octocat')
      expect(post.status).toBe(403)
      expect(post.body.errors[0].code).toBe('plan_required')
      expect((await status(user)).body.errors[0].code).toBe('plan_required')
      expect(codeHostCalls()).toBe(before)
    }
  })

  it('status none before anything was asked', async () => {
    const { buyer } = await ultimateBuyer()
    expect((await status(buyer)).body).toEqual({ status: 'none', username: null })
  })
})

describe('the invitation', () => {
  it('pending after the request, collaborator once accepted, refreshed at most once a minute', async () => {
    const { buyer } = await ultimateBuyer()
    const post = await request(buyer, 'kit-user-c')
    expect(post.status).toBe(200)
    expect(post.body).toEqual({ status: 'pending', username: 'kit-user-c' })
    expect([...codeHost.state.invitations.values()].some((invitation) => invitation.login === 'kit-user-c')).toBe(true)

    codeHost.accept('kit-user-c')
    const before = codeHostCalls()
    expect((await status(buyer)).body.status).toBe('pending')
    expect(codeHostCalls()).toBe(before)

    await ageCheck(buyer)
    expect((await status(buyer)).body).toEqual({ status: 'collaborator', username: 'kit-user-c' })
    expect((await rowOf(buyer))?.acceptedAt).toBeTruthy()
  })

  it('asking again once accepted refreshes to collaborator without inviting again', async () => {
    const { buyer } = await ultimateBuyer()
    await request(buyer, 'kit-user-d')
    codeHost.accept('kit-user-d')
    const puts = () =>
      codeHost.state.requests.filter(
        (entry) => entry.method === 'PUT' && entry.path.endsWith('/collaborators/kit-user-d'),
      ).length
    const before = puts()
    await ageCheck(buyer)
    const again = await request(buyer, 'kit-user-d')
    expect(again.body).toEqual({ status: 'collaborator', username: 'kit-user-d' })
    expect(puts()).toBe(before)
  })

  it('a second username replaces the first: its invitation is withdrawn, its role removed', async () => {
    const { buyer } = await ultimateBuyer()
    await request(buyer, 'kit-user-e')
    codeHost.accept('kit-user-e')
    await request(buyer, 'kit-user-f')
    expect(codeHost.state.collaborators.has('kit-user-e')).toBe(false)
    const replaced = await request(buyer, 'kit-user-g')
    expect(replaced.body).toEqual({ status: 'pending', username: 'kit-user-g' })
    expect([...codeHost.state.invitations.values()].map((invitation) => invitation.login)).not.toContain('kit-user-f')
    expect(await rows(payload(), 'repo_access', { user: { equals: buyer.user.id } })).toHaveLength(1)
  })

  it('an expired invitation is sent again', async () => {
    const { buyer } = await ultimateBuyer()
    await request(buyer, 'kit-user-h')
    const first = (await rowOf(buyer))!.invitationId
    codeHostClock.offsetMs = 8 * 86_400_000
    try {
      await ageCheck(buyer)
      expect((await status(buyer)).body.status).toBe('pending')
    } finally {
      codeHostClock.offsetMs = 0
    }
    const second = (await rowOf(buyer))!.invitationId
    expect(second).not.toBe(first)
    expect([...codeHost.state.invitations.keys()]).toContain(second)
  })

  it('409 username_taken when another account already has that username', async () => {
    const { buyer: first } = await ultimateBuyer()
    await request(first, 'kit-user-i')
    const { buyer: second } = await ultimateBuyer()
    const response = await request(second, 'KIT-user-i')
    expect(response.status).toBe(409)
    expect(response.body.errors[0].code).toBe('username_taken')
  })

  it('concurrent requests by one user leave one username with access', async () => {
    const { buyer } = await ultimateBuyer()
    const logins = ['kit-user-j', 'kit-user-k', 'octocat']
    const responses = await Promise.all(logins.map((login) => request(buyer, login)))
    expect(responses.map((response) => response.status)).toEqual([200, 200, 200])
    const rowsOfUser = await rows(payload(), 'repo_access', { user: { equals: buyer.user.id } })
    expect(rowsOfUser).toHaveLength(1)
    const kept = rowsOfUser[0]!.username
    const pendingLogins = [...codeHost.state.invitations.values()].map((invitation) => invitation.login)
    for (const login of logins.filter((login) => login !== kept)) expect(pendingLogins).not.toContain(login)
    expect(pendingLogins).toContain(kept)
  })
})

describe('usernames and code-host answers', () => {
  it.each(['-a', 'a-', 'a--b', 'a'.repeat(40), 'a_b', 'x/..', 'üser', '', ' octocat', 42, null])(
    '400 invalid_username for %j before any code-host call',
    async (username) => {
      const { buyer } = await ultimateBuyer()
      const before = codeHostCalls()
      const response = await request(buyer, username)
      expect(response.status).toBe(400)
      expect(response.body.errors[0].code).toBe('invalid_username')
      expect(codeHostCalls()).toBe(before)
    },
  )

  it('400 invalid_username when the code host has no such account', async () => {
    const { buyer } = await ultimateBuyer()
    const response = await request(buyer, 'no-such-account-here')
    expect(response.status).toBe(400)
    expect(response.body.errors[0].code).toBe('invalid_username')
    expect(await rowOf(buyer)).toBeUndefined()
  })

  it.each([
    ['422', { status: 422, body: { message: 'Validation Failed' } }, 429, 'rate_limited', 'kit-fail-1'],
    [
      '403 rate limit',
      { status: 403, headers: { 'x-ratelimit-remaining': '0' }, body: { message: 'API rate limit exceeded' } },
      429,
      'rate_limited',
      'kit-fail-2',
    ],
    ['500', { status: 500 }, 502, 'code_host_unavailable', 'kit-fail-3'],
    ['502', { status: 502 }, 502, 'code_host_unavailable', 'kit-fail-4'],
    ['a timeout', { delayMs: 3_000 }, 502, 'code_host_unavailable', 'kit-fail-5'],
  ] as const)(
    '%s from the code host: an error, nothing changed, and a retry works',
    async (_name, failure, code, errorCode, login) => {
      const { buyer } = await ultimateBuyer()
      codeHost.failNext({ method: 'PUT', path: /\/collaborators\//, ...failure })
      const failed = await request(buyer, login)
      codeHost.clearFailures()
      expect(failed.status).toBe(code)
      expect(failed.body.errors[0].code).toBe(errorCode)
      expect(await rowOf(buyer)).toBeUndefined()
      // the request is retryable
      const retried = await request(buyer, login)
      expect(retried.status).toBe(200)
      expect(retried.body.status).toBe('pending')
    },
  )
})

describe('losing the license takes access back', () => {
  it.each([
    ['a staff revoke', 'revoke'],
    ['a full refund', 'refund'],
  ] as const)('after %s the collaborator is removed (by a retried job)', async (_name, how) => {
    const { buyer, purchase } = await ultimateBuyer()
    const login = how === 'revoke' ? 'kit-revoke' : 'kit-refund'
    await request(buyer, login)
    codeHost.accept(login)
    await ageCheck(buyer)
    expect((await status(buyer)).body.status).toBe('collaborator')
    if (how === 'revoke') {
      const [license] = await rows(payload(), 'licenses', { user: { equals: buyer.user.id } })
      const support = await createUser(payload(), 'support')
      await api('PATCH', `/licenses/${license!.id}`, {
        as: support,
        body: { override: 'revoked', overrideReason: 'abuse' },
      })
    } else {
      await standIn.refund(purchase.events.find((event) => event.type === 'charge.succeeded')!.data.object.id)
    }
    const job = (
      await payload().find({
        collection: 'payload-jobs',
        where: { taskSlug: { equals: 'withdrawRepoAccess' } },
        limit: 100,
      })
    ).docs.find((candidate) => (candidate.input as { userId: number }).userId === buyer.user.id)
    expect(job).toBeTruthy()
    // the code host is down at first: the job fails and stays queued
    codeHost.failNext({ path: /\/collaborators\//, status: 500, count: 1 })
    await payload().jobs.runByID({ id: job!.id })
    expect(codeHost.state.collaborators.has(login)).toBe(true)
    codeHost.clearFailures()
    for (let round = 0; round < 5 && codeHost.state.collaborators.has(login); round += 1) {
      await new Promise((resolve) => setTimeout(resolve, 20))
      await payload().jobs.runByID({ id: job!.id })
    }
    expect(codeHost.state.collaborators.has(login)).toBe(false)
    expect((await rowOf(buyer))?.status).toBe('revoked')
  })
})

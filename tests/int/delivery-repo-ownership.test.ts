import './../support/billing-env'

import { Octokit } from '@octokit/rest'
import { beforeAll, describe, expect, it } from 'vitest'

import { RATE_LIMITS } from '../../src/auth/rate-limit'
import { codeHost, codeHostClock, PRICES, REPO, standIn } from '../support/billing-env'
import { buy, rows, seedStandInPlans } from '../support/billing'
import { grantLicense } from '../support/licenses'
import { api, createUser, type TestUser, usePayload } from '../support/payload'

/**
 * The private repository is touched only where the service made the access (issue 21): every attack
 * runs against the code-host stand-in over HTTP with the real @octokit/rest, as in production.
 */
const payload = usePayload()

const CODE_HOST_CALLS = RATE_LIMITS['code_host_calls:user']
const USERNAME_CHANGES = RATE_LIMITS['repo_username:user']

/** The seller's own people on the repository, there before any customer. */
const MAINTAINER = 'kit-maintainer'
const LATE_MAINTAINER = 'kit-late-maintainer'
const HAND_INVITED = 'kit-hand-invited'
const LOGINS = [
  'kit-own-refund',
  'kit-own-revoke',
  'kit-own-after-refusals',
  'kit-same-20',
  'kit-expiring',
  'kit-budget',
  'kit-budget-other',
  'kit-record',
  'kit-legacy-old',
  'kit-legacy-new',
  'kit-legacy-kept',
  'kit-legacy-job',
  'kit-legacy-job-new',
  'kit-legacy-pending',
  'kit-legacy-resend',
  'kit-staff-owned',
  'kit-elevated',
  'kit-not-elevated',
  ...Array.from({ length: USERNAME_CHANGES.points }, (_, index) => `kit-count-${index}`),
]

/** The seller's view of the repository: its collaborators and their roles, read over HTTP like GitHub's. */
const seller = new Octokit({ auth: REPO.token, baseUrl: codeHost.url, request: { retries: 0 } })
const collaboratorRoles = async (): Promise<Record<string, string>> => {
  const listed = await seller.paginate(seller.rest.repos.listCollaborators, {
    owner: REPO.owner,
    repo: REPO.name,
    per_page: 100,
  })
  return Object.fromEntries(
    listed.map((collaborator) => [collaborator.login.toLowerCase(), String(collaborator.role_name)]),
  )
}

beforeAll(async () => {
  await seedStandInPlans(payload())
  for (const login of LOGINS) codeHost.addUser(login)
  codeHost.addCollaborator(MAINTAINER, 'maintain')
})

const ultimateBuyer = async () => {
  const buyer = await createUser(payload(), 'customer')
  const purchase = await buy(PRICES.ultimate, { as: buyer })
  return { buyer, purchase }
}
/** Quicker: a license granted by hand, enough where no refund is needed. */
const ultimateCustomer = async () => {
  const user = await createUser(payload(), 'customer')
  const license = await grantLicense(payload(), user, 'ultimate', 'active')
  return { user, license }
}
const request = (who: TestUser, username: string) => api('POST', '/repo-access', { as: who, body: { username } })
const status = (who: TestUser) => api('GET', '/repo-access', { as: who })
const rowOf = async (user: TestUser) => (await rows(payload(), 'repo_access', { user: { equals: user.user.id } }))[0]
const claimsOf = async (key: string) => rows(payload(), 'repo_usernames', { usernameKey: { equals: key } })
/** Make the next refresh consult the code host (it does so at most every 10 s per user). */
const ageCheck = async (user: TestUser) => {
  const row = await rowOf(user)
  await payload().update({
    collection: 'repo_access',
    id: row!.id,
    data: { lastCheckedAt: new Date(Date.now() - 120_000).toISOString() },
  })
}
const callsTo = (method: string, login: string) =>
  codeHost.state.requests.filter(
    (entry) => entry.method === method && entry.path.toLowerCase().endsWith(`/collaborators/${login.toLowerCase()}`),
  ).length
const calls = () => codeHost.state.requests.length
const pendingLogins = () => [...codeHost.state.invitations.values()].map((invitation) => invitation.login.toLowerCase())
const support = async () => createUser(payload(), 'support')
const revokeLicenseOf = async (user: TestUser) => {
  const [license] = await rows(payload(), 'licenses', { user: { equals: user.user.id } })
  const answer = await api('PATCH', `/licenses/${license!.id}`, {
    as: await support(),
    body: { override: 'revoked', overrideReason: 'abuse' },
  })
  expect(answer.status).toBe(200)
}
const runWithdrawalsOf = async (userId: number) => {
  for (let round = 0; round < 3; round += 1) {
    const jobs = (
      await payload().find({
        collection: 'payload-jobs',
        where: { taskSlug: { equals: 'withdrawRepoAccess' } },
        limit: 1000,
        sort: 'id',
      })
    ).docs.filter((job) => (job.input as { userId: number }).userId === userId && !job.completedAt)
    if (jobs.length === 0) return
    for (const job of jobs) await payload().jobs.runByID({ id: job.id })
  }
}
/** A row as the code before issue 21 wrote it: no record of the service's invitation. */
const legacyRow = async (
  user: TestUser,
  username: string,
  data: { status: 'pending' | 'collaborator'; invitationId?: number },
) => {
  await payload().create({
    collection: 'repo_usernames',
    data: { usernameKey: username.toLowerCase(), user: user.user.id },
  })
  return payload().create({
    collection: 'repo_access',
    data: {
      user: user.user.id,
      username,
      ...data,
      invitedAt: new Date().toISOString(),
      lastCheckedAt: new Date(Date.now() - 120_000).toISOString(),
    },
    overrideAccess: true,
  })
}

const expectHasAccess = (answer: { status: number; body: unknown }) => {
  expect(answer.status).toBe(409)
  expect(answer.body).toEqual({ errors: [{ code: 'username_has_access', message: expect.any(String) }] })
}

describe('a username that already has access is refused, and never removed', () => {
  it.each([
    ['refunded', 'kit-own-refund'],
    ['revoked', 'kit-own-revoke'],
  ] as const)(
    "a customer asks for the maintainer's name, then another, then is %s: the maintainer stays",
    async (how, own) => {
      const { buyer, purchase } = await ultimateBuyer()
      const before = await collaboratorRoles()
      expect(before[MAINTAINER]).toBe('maintain')

      for (const name of [MAINTAINER, MAINTAINER.toUpperCase()]) {
        expectHasAccess(await request(buyer, name))
      }
      // Nothing sent (an invitation would also have turned the maintainer's role into read), nothing stored.
      expect(callsTo('PUT', MAINTAINER)).toBe(0)
      expect(await rowOf(buyer)).toBeUndefined()
      expect(await claimsOf(MAINTAINER)).toHaveLength(0)

      expect((await request(buyer, own)).body).toEqual({ status: 'pending', username: own })
      codeHost.accept(own)
      await ageCheck(buyer)
      expect((await status(buyer)).body).toEqual({ status: 'collaborator', username: own })

      if (how === 'refunded') {
        await standIn.refund(purchase.events.find((event) => event.type === 'charge.succeeded')!.data.object.id)
      } else {
        await revokeLicenseOf(buyer)
      }
      await runWithdrawalsOf(buyer.user.id)

      const after = await collaboratorRoles()
      expect(after[MAINTAINER]).toBe('maintain')
      expect(after[own]).toBeUndefined()
      expect(callsTo('DELETE', MAINTAINER)).toBe(0)
      expect((await rowOf(buyer))?.status).toBe('revoked')
    },
  )

  it.each([
    ['the seller made it a maintainer since', 'kit-elevated', 'maintain'],
    ['it still has the read role the service granted', 'kit-not-elevated', undefined],
  ] as const)('a username the service invited, when the license ends and %s', async (_how, own, expected) => {
    const { user } = await ultimateCustomer()
    expect((await request(user, own)).body).toEqual({ status: 'pending', username: own })
    codeHost.accept(own)
    await ageCheck(user)
    expect((await status(user)).body).toEqual({ status: 'collaborator', username: own })
    expect((await collaboratorRoles())[own]).toBe('read')
    // The seller promotes the customer's username by hand: it is the seller's now, not the service's.
    if (expected) codeHost.addCollaborator(own, expected)

    await revokeLicenseOf(user)
    await runWithdrawalsOf(user.user.id)
    expect((await collaboratorRoles())[own]).toBe(expected)
    expect(callsTo('DELETE', own)).toBe(expected ? 0 : 1)
    expect((await rowOf(user))?.status).toBe('revoked')
  })

  it('a maintainer added between the check and the invitation (the code host answers 204 anyway): refused, nothing kept', async () => {
    const { user } = await ultimateCustomer()
    codeHost.addCollaborator(LATE_MAINTAINER, 'write')
    // The collaborator check runs before the maintainer is added (a 404, as GitHub answers then)...
    codeHost.failNext({
      method: 'GET',
      path: new RegExp(`/collaborators/${LATE_MAINTAINER}$`),
      status: 404,
      body: { message: 'Not Found' },
    })
    const answer = await request(user, LATE_MAINTAINER)
    codeHost.clearFailures()
    // ...so the invitation went out, and the code host answered 204: not the customer's collaborator.
    expect(callsTo('PUT', LATE_MAINTAINER)).toBe(1)
    expectHasAccess(answer)
    expect(await rowOf(user)).toBeUndefined()
    expect(await claimsOf(LATE_MAINTAINER)).toHaveLength(0)
    expect(pendingLogins()).not.toContain(LATE_MAINTAINER)

    // Losing the license later does not reach it either. (The racing 204 itself set its role to read:
    // GitHub's documented answer to inviting an existing collaborator. The check before inviting keeps
    // that to this race; the service can only refuse to record and remove it.)
    await revokeLicenseOf(user)
    await runWithdrawalsOf(user.user.id)
    expect((await collaboratorRoles())[LATE_MAINTAINER]).toBe('read')
    expect(callsTo('DELETE', LATE_MAINTAINER)).toBe(0)
  })

  it('refusals spend no new-username point: the day’s changes are all still there afterwards', async () => {
    const { user } = await ultimateCustomer()
    for (let attempt = 0; attempt <= USERNAME_CHANGES.points; attempt += 1)
      expectHasAccess(await request(user, MAINTAINER))
    expect((await request(user, 'kit-own-after-refusals')).body).toEqual({
      status: 'pending',
      username: 'kit-own-after-refusals',
    })
  })

  it('a username with an invitation someone else sent (the seller, by hand) is refused, and that invitation is left alone', async () => {
    const { user } = await ultimateCustomer()
    const handInvitation = codeHost.addInvitation(HAND_INVITED, 'write')
    expectHasAccess(await request(user, HAND_INVITED))
    // GitHub would answer the standing invitation again with 201: the service must not take it for its own.
    expect(callsTo('PUT', HAND_INVITED)).toBe(0)
    expect(codeHost.state.invitations.has(handInvitation)).toBe(true)
    expect(await rowOf(user)).toBeUndefined()
    expect(await claimsOf(HAND_INVITED)).toHaveLength(0)
  })

  it("the repository owner's name is refused the same way, without a call that could change anything", async () => {
    const { user } = await ultimateCustomer()
    expectHasAccess(await request(user, REPO.owner))
    expect(callsTo('PUT', REPO.owner)).toBe(0)
  })
})

describe('only what the service invited is removed', () => {
  it('a request from before invitations were recorded (collaborator, no record) is never removed: not when replaced, not when the license ends', async () => {
    const { user } = await ultimateCustomer()
    // The old code recorded a maintainer's 204 as the customer's collaborator.
    codeHost.addCollaborator('kit-legacy-old', 'maintain')
    await legacyRow(user, 'kit-legacy-old', { status: 'collaborator' })

    expect((await request(user, 'kit-legacy-new')).body).toEqual({ status: 'pending', username: 'kit-legacy-new' })
    expect(callsTo('DELETE', 'kit-legacy-old')).toBe(0)
    expect((await collaboratorRoles())['kit-legacy-old']).toBe('maintain')
    // Forgotten here: the claim is free again.
    expect(await claimsOf('kit-legacy-old')).toHaveLength(0)

    await revokeLicenseOf(user)
    await runWithdrawalsOf(user.user.id)
    // The username the service invited goes; the other one stays.
    expect(pendingLogins()).not.toContain('kit-legacy-new')
    expect((await collaboratorRoles())['kit-legacy-old']).toBe('maintain')
    expect((await rowOf(user))?.status).toBe('revoked')

    const { user: other } = await ultimateCustomer()
    codeHost.addCollaborator('kit-legacy-kept', 'write')
    await legacyRow(other, 'kit-legacy-kept', { status: 'collaborator' })
    await revokeLicenseOf(other)
    await runWithdrawalsOf(other.user.id)
    expect((await collaboratorRoles())['kit-legacy-kept']).toBe('write')
    expect(callsTo('DELETE', 'kit-legacy-kept')).toBe(0)
    expect((await rowOf(other))?.status).toBe('revoked')
    expect(await claimsOf('kit-legacy-kept')).toHaveLength(0)
  })

  it('a withdrawal job queued by the old code (no record that the service invited the username) only gives the claim back', async () => {
    const { user } = await ultimateCustomer()
    codeHost.addCollaborator('kit-legacy-job', 'maintain')
    await payload().create({
      collection: 'repo_usernames',
      data: { usernameKey: 'kit-legacy-job', user: user.user.id },
    })
    expect((await request(user, 'kit-legacy-job-new')).status).toBe(200)
    await payload().jobs.queue({
      task: 'withdrawRepoAccess',
      input: { userId: user.user.id, username: 'kit-legacy-job', invitationId: null },
    })
    await runWithdrawalsOf(user.user.id)
    expect(callsTo('DELETE', 'kit-legacy-job')).toBe(0)
    expect((await collaboratorRoles())['kit-legacy-job']).toBe('maintain')
    expect(await claimsOf('kit-legacy-job')).toHaveLength(0)
    expect(pendingLogins()).toContain('kit-legacy-job-new')
  })

  it('an old pending request whose invitation expired is not cleaned up by GET: that invitation is not on record as ours', async () => {
    const { user } = await ultimateCustomer()
    const invitationId = codeHost.addInvitation('kit-legacy-pending', 'write')
    await legacyRow(user, 'kit-legacy-pending', { status: 'pending', invitationId })
    codeHostClock.offsetMs = 8 * 86_400_000
    try {
      const before = calls()
      expect((await status(user)).body).toEqual({ status: 'pending', username: 'kit-legacy-pending' })
      expect(calls()).toBe(before)
    } finally {
      codeHostClock.offsetMs = 0
    }
    expect(codeHost.state.invitations.has(invitationId)).toBe(true)
  })

  it('staff resending the invitation of an old request whose username has access: 409 username_has_access, nothing sent or removed', async () => {
    const { user } = await ultimateCustomer()
    codeHost.addCollaborator('kit-legacy-resend', 'maintain')
    const row = await legacyRow(user, 'kit-legacy-resend', { status: 'pending', invitationId: 999_999 })
    const before = {
      puts: callsTo('PUT', 'kit-legacy-resend'),
      deletes: callsTo('DELETE', 'kit-legacy-resend'),
      invitations: codeHost.state.invitations.size,
    }
    const answer = await api('POST', `/staff/repo-access/${row.id}/resend-invitation`, {
      as: await support(),
      body: { reason: 'Customer says no email came' },
    })
    expect(answer.status).toBe(409)
    expect(answer.body.errors[0].code).toBe('username_has_access')
    expect({
      puts: callsTo('PUT', 'kit-legacy-resend'),
      deletes: callsTo('DELETE', 'kit-legacy-resend'),
      invitations: codeHost.state.invitations.size,
    }).toEqual(before)
    expect((await collaboratorRoles())['kit-legacy-resend']).toBe('maintain')
    expect(await payload().findByID({ collection: 'repo_access', id: row.id, depth: 0 })).toMatchObject({
      status: 'pending',
    })
  })

  it("staff resending the service's own pending invitation withdraws only that one and records the new one", async () => {
    const { user } = await ultimateCustomer()
    await request(user, 'kit-staff-owned')
    const row = (await rowOf(user))!
    const answer = await api('POST', `/staff/repo-access/${row.id}/resend-invitation`, {
      as: await support(),
      body: { reason: 'Expired' },
    })
    expect(answer.status).toBe(200)
    const updated = (await rowOf(user))!
    expect(updated.invitationId).not.toBe(row.invitationId)
    expect(updated.serviceInvitation).toMatchObject({ username: 'kit-staff-owned', invitationId: updated.invitationId })
    expect(
      [...codeHost.state.invitations.values()]
        .filter((invitation) => invitation.login === 'kit-staff-owned')
        .map((invitation) => invitation.id),
    ).toEqual([updated.invitationId])
  })
})

describe('asking again for the same username', () => {
  it('20 requests for one username: one invitation reaches the code host, every answer is the pending one', async () => {
    const { user } = await ultimateCustomer()
    const sequential = []
    for (let attempt = 0; attempt < 10; attempt += 1) sequential.push(await request(user, 'kit-same-20'))
    const concurrent = await Promise.all(
      Array.from({ length: 10 }, (_, index) => request(user, index % 2 ? 'KIT-SAME-20' : 'kit-same-20')),
    )
    for (const answer of [...sequential, ...concurrent]) {
      expect(answer.status).toBe(200)
      expect(answer.body).toEqual({ status: 'pending', username: 'kit-same-20' })
    }
    expect(callsTo('PUT', 'kit-same-20')).toBe(1)
    expect(pendingLogins().filter((login) => login === 'kit-same-20')).toHaveLength(1)
    expect(await rows(payload(), 'repo_access', { user: { equals: user.user.id } })).toHaveLength(1)
  })

  it('an expired invitation asked for again gets one new invitation, counted like a new username', async () => {
    const { user } = await ultimateCustomer()
    await request(user, 'kit-expiring')
    const first = (await rowOf(user))!.invitationId
    codeHostClock.offsetMs = 8 * 86_400_000
    try {
      await ageCheck(user)
      expect((await request(user, 'kit-expiring')).body).toEqual({ status: 'pending', username: 'kit-expiring' })
    } finally {
      codeHostClock.offsetMs = 0
    }
    expect(callsTo('PUT', 'kit-expiring')).toBe(2)
    const renewed = (await rowOf(user))!
    expect(renewed.invitationId).not.toBe(first)
    expect(renewed.serviceInvitation).toMatchObject({ username: 'kit-expiring', invitationId: renewed.invitationId })
    expect(codeHost.state.invitations.has(first!)).toBe(false)
    // Two of the day's points are spent: three more new usernames, then 429.
    for (const login of ['kit-count-0', 'kit-count-1', 'kit-count-2'])
      expect((await request(user, login)).status).toBe(200)
    const limited = await request(user, 'kit-count-3')
    expect(limited.status).toBe(429)
    expect(limited.body.errors[0].code).toBe('rate_limited')
  })
})

describe("the account's code-host budget", () => {
  it(`${CODE_HOST_CALLS.points} code-host calls an hour per account, then 429 rate_limited with Retry-After and no call; other accounts go on`, async () => {
    const { user } = await ultimateCustomer()
    const start = calls()
    expect((await request(user, 'kit-budget')).status).toBe(200)
    let limited: Awaited<ReturnType<typeof status>> | null = null
    // Each look at a pending invitation asks the code host twice (collaborator? invitation?).
    for (let round = 0; round < CODE_HOST_CALLS.points && !limited; round += 1) {
      await ageCheck(user)
      const answer = await status(user)
      if (answer.status === 429) limited = answer
      else expect(answer.body).toEqual({ status: 'pending', username: 'kit-budget' })
    }
    expect(limited).not.toBeNull()
    expect(limited!.body.errors[0].code).toBe('rate_limited')
    const retryAfter = Number(limited!.headers.get('retry-after'))
    expect(retryAfter).toBeGreaterThan(0)
    expect(retryAfter).toBeLessThanOrEqual(CODE_HOST_CALLS.durationSeconds)
    // At most the budget, plus what the last admitted request needed to finish.
    const spent = calls() - start
    expect(spent).toBeGreaterThanOrEqual(CODE_HOST_CALLS.points)
    expect(spent).toBeLessThanOrEqual(CODE_HOST_CALLS.points + 4)

    // Past it, no request of this account reaches the code host: a look, a renewal, a new username.
    const before = calls()
    await ageCheck(user)
    for (const answer of [
      await status(user),
      await request(user, 'kit-budget'),
      await request(user, 'kit-budget-other'),
    ]) {
      expect(answer.status).toBe(429)
      expect(answer.body.errors[0].code).toBe('rate_limited')
      expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0)
    }
    expect(calls()).toBe(before)
    expect(await claimsOf('kit-budget-other')).toHaveLength(0)

    const { user: other } = await ultimateCustomer()
    expect((await request(other, 'kit-budget-other')).status).toBe(200)
  })
})

describe("the record of the service's invitation", () => {
  it('is written with the invitation; staff read it; customers neither read nor write it, and nobody forges it through the API', async () => {
    const { user } = await ultimateCustomer()
    await request(user, 'kit-record')
    const row = (await rowOf(user))!
    expect(row.serviceInvitation).toEqual({
      username: 'kit-record',
      invitationId: row.invitationId,
      sentAt: expect.any(String),
    })
    expect(codeHost.state.invitations.has(row.invitationId!)).toBe(true)

    const own = await api('GET', `/repo_access/${row.id}`, { as: user })
    expect(own.status).toBe(200)
    expect(own.body).not.toHaveProperty('serviceInvitation')
    const graphql = await api('POST', '/graphql', {
      as: user,
      body: { query: '{ RepoAccesses { docs { id serviceInvitation { username invitationId } } } }' },
    })
    expect(JSON.stringify(graphql.body)).not.toContain('kit-record')
    expect((await api('GET', `/repo_access/${row.id}`, { as: await support() })).body.serviceInvitation).toMatchObject({
      username: 'kit-record',
      invitationId: row.invitationId,
    })

    const forged = {
      serviceInvitation: { username: MAINTAINER, invitationId: 1, sentAt: new Date().toISOString() },
      username: MAINTAINER,
    }
    expect((await api('PATCH', `/repo_access/${row.id}`, { as: user, body: forged })).status).toBe(403)
    const admin = await createUser(payload(), 'admin')
    await api('PATCH', `/repo_access/${row.id}`, { as: admin, body: { serviceInvitation: forged.serviceInvitation } })
    expect((await rowOf(user))!.serviceInvitation).toEqual(row.serviceInvitation)
  })
})

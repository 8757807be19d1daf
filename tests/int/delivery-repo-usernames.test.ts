import './../support/billing-env'

import { beforeAll, describe, expect, it } from 'vitest'

import { RATE_LIMITS } from '../../src/auth/rate-limit'
import { codeHost, PRICES } from '../support/billing-env'
import { buy, rows, seedStandInPlans } from '../support/billing'
import { api, createUser, type TestUser, usePayload } from '../support/payload'

const payload = usePayload()

const LOGINS = [
  'kit-back-old',
  'kit-back-new',
  'kit-race',
  'kit-race-many',
  'kit-freed',
  'kit-keep-old',
  'kit-keep-new',
  'kit-swap-old',
  'kit-swap-new',
  'kit-outage',
]
const USERNAME_CHANGES = RATE_LIMITS['repo_username:user']
const CHANGES = Array.from({ length: USERNAME_CHANGES.points + 1 }, (_, index) => `kit-change-${index}`)

beforeAll(async () => {
  await seedStandInPlans(payload())
  for (const login of [...LOGINS, ...CHANGES]) codeHost.addUser(login)
})

const ultimateBuyer = async () => {
  const buyer = await createUser(payload(), 'customer')
  const purchase = await buy(PRICES.ultimate, { as: buyer })
  return { buyer, purchase }
}
const request = (who: TestUser, username: string) => api('POST', '/repo-access', { as: who, body: { username } })
const claimsOf = async (key: string) => rows(payload(), 'repo_usernames', { usernameKey: { equals: key } })
const putsFor = (login: string) =>
  codeHost.state.requests.filter(
    (entry) => entry.method === 'PUT' && entry.path.toLowerCase().endsWith(`/collaborators/${login}`),
  ).length
const pendingLogins = () => [...codeHost.state.invitations.values()].map((invitation) => invitation.login.toLowerCase())

const runJobsOf = async (userId: number) => {
  const jobs = (
    await payload().find({
      collection: 'payload-jobs',
      where: { taskSlug: { equals: 'withdrawRepoAccess' } },
      limit: 100,
      sort: 'id',
    })
  ).docs.filter((job) => (job.input as { userId: number }).userId === userId && !job.completedAt)
  for (const job of jobs) await payload().jobs.runByID({ id: job.id })
  return jobs.length
}

describe('one code-host username per account, across all accounts', () => {
  it('two accounts asking for one username at the same time (any case): one gets it, the other 409 username_taken', async () => {
    const first = await ultimateBuyer()
    const second = await ultimateBuyer()
    // Both requests are in flight together: the code host answers each invitation slowly.
    codeHost.failNext({ method: 'PUT', path: /\/collaborators\/kit-race$/i, delayMs: 300, count: 2 })
    const answers = await Promise.all([request(first.buyer, 'kit-race'), request(second.buyer, 'KIT-Race')])
    codeHost.clearFailures()
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409])
    const refused = answers.find((answer) => answer.status === 409)!
    expect(refused.body.errors[0].code).toBe('username_taken')
    const granted = await rows(payload(), 'repo_access', { username: { like: 'kit-race' } })
    expect(granted).toHaveLength(1)
    expect(await claimsOf('kit-race')).toHaveLength(1)
    expect((await claimsOf('kit-race'))[0]!.user).toBe(granted[0]!.user)
  })

  it('five accounts racing: exactly one holds the username, the refused ones never reach the code host', async () => {
    const buyers = await Promise.all(Array.from({ length: 5 }, () => ultimateBuyer()))
    codeHost.failNext({ method: 'PUT', path: /\/collaborators\/kit-race-many$/i, delayMs: 300, count: 5 })
    const answers = await Promise.all(
      buyers.map(({ buyer }, index) => request(buyer, index % 2 ? 'Kit-Race-Many' : 'kit-race-many')),
    )
    codeHost.clearFailures()
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(1)
    expect(
      answers.filter((answer) => answer.status === 409 && answer.body.errors[0].code === 'username_taken'),
    ).toHaveLength(4)
    expect(putsFor('kit-race-many')).toBe(1)
    expect(await rows(payload(), 'repo_access', { username: { like: 'kit-race-many' } })).toHaveLength(1)
  })

  it('the database refuses a second claim on one username whoever writes it', async () => {
    const { buyer } = await ultimateBuyer()
    const other = await createUser(payload(), 'customer')
    await payload().create({
      collection: 'repo_usernames',
      data: { usernameKey: 'kit-db-unique', user: buyer.user.id },
    })
    await expect(
      payload().create({ collection: 'repo_usernames', data: { usernameKey: 'kit-db-unique', user: other.user.id } }),
    ).rejects.toThrow()
  })

  it('a username whose access was withdrawn is free for another account', async () => {
    const { buyer } = await ultimateBuyer()
    expect((await request(buyer, 'kit-freed')).status).toBe(200)
    const [license] = await rows(payload(), 'licenses', { user: { equals: buyer.user.id } })
    const support = await createUser(payload(), 'support')
    await api('PATCH', `/licenses/${license!.id}`, {
      as: support,
      body: { override: 'revoked', overrideReason: 'abuse' },
    })
    expect(await runJobsOf(buyer.user.id)).toBeGreaterThan(0)
    expect(await claimsOf('kit-freed')).toHaveLength(0)
    const { buyer: next } = await ultimateBuyer()
    const answer = await request(next, 'Kit-Freed')
    expect(answer.status).toBe(200)
    expect(pendingLogins()).toContain('kit-freed')
  })

  it('a replaced username stays claimed until it is off the code host; the queued job finishes it when the code host failed', async () => {
    const { buyer } = await ultimateBuyer()
    await request(buyer, 'kit-keep-old')
    codeHost.accept('kit-keep-old')
    // Removing the old collaborator fails: the new username is granted, the old one is still held.
    codeHost.failNext({ method: 'DELETE', path: /\/collaborators\/kit-keep-old$/, status: 502 })
    const swapped = await request(buyer, 'kit-keep-new')
    codeHost.clearFailures()
    expect(swapped.body).toEqual({ status: 'pending', username: 'kit-keep-new' })
    expect(codeHost.state.collaborators.has('kit-keep-old')).toBe(true)
    const { buyer: other } = await ultimateBuyer()
    expect((await request(other, 'kit-keep-old')).status).toBe(409)

    await runJobsOf(buyer.user.id)
    expect(codeHost.state.collaborators.has('kit-keep-old')).toBe(false)
    expect(await claimsOf('kit-keep-old')).toHaveLength(0)
    expect((await request(other, 'kit-keep-old')).status).toBe(200)
    // the new username was not touched
    expect(pendingLogins()).toContain('kit-keep-new')
  })

  it('asking for the old username again while the code host is removing it: refused until it is gone, then a fresh invitation (row and code host agree)', async () => {
    const { buyer } = await ultimateBuyer()
    await request(buyer, 'kit-back-old')
    codeHost.accept('kit-back-old')
    // The code host takes its time to drop the old collaborator.
    codeHost.failNext({ method: 'DELETE', path: /\/collaborators\/kit-back-old$/, delayMs: 600 })
    const swapping = request(buyer, 'kit-back-new')
    for (
      let waited = 0;
      waited < 100 &&
      !codeHost.state.requests.some(
        (entry) => entry.method === 'DELETE' && entry.path.endsWith('/collaborators/kit-back-old'),
      );
      waited += 1
    ) {
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    const meanwhile = await request(buyer, 'kit-back-old')
    expect(meanwhile.status).toBe(409)
    expect(meanwhile.body.errors[0].code).toBe('username_being_removed')
    expect((await swapping).body).toEqual({ status: 'pending', username: 'kit-back-new' })
    codeHost.clearFailures()
    expect(codeHost.state.collaborators.has('kit-back-old')).toBe(false)
    expect(await claimsOf('kit-back-old')).toHaveLength(0)

    const back = await request(buyer, 'kit-back-old')
    expect(back.body).toEqual({ status: 'pending', username: 'kit-back-old' })
    expect(pendingLogins()).toContain('kit-back-old')
    expect(pendingLogins()).not.toContain('kit-back-new')
  })

  it('replacing a username gives its claim back at once when the code host answers', async () => {
    const { buyer } = await ultimateBuyer()
    await request(buyer, 'kit-swap-old')
    await request(buyer, 'kit-swap-new')
    expect(await claimsOf('kit-swap-old')).toHaveLength(0)
    expect(await claimsOf('kit-swap-new')).toHaveLength(1)
    expect(pendingLogins()).not.toContain('kit-swap-old')
  })
})

describe('a limit on username changes', () => {
  it(`${USERNAME_CHANGES.points} new usernames a day, then 429 rate_limited with Retry-After and no code-host call`, async () => {
    const { buyer } = await ultimateBuyer()
    for (const login of CHANGES.slice(0, USERNAME_CHANGES.points)) {
      expect((await request(buyer, login)).status).toBe(200)
    }
    const last = CHANGES[USERNAME_CHANGES.points]!
    const limited = await request(buyer, last)
    expect(limited.status).toBe(429)
    expect(limited.body.errors[0].code).toBe('rate_limited')
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(3600)
    expect(putsFor(last)).toBe(0)
    // Asking again for the username one holds renews it: not a change.
    expect((await request(buyer, CHANGES[USERNAME_CHANGES.points - 1]!)).status).toBe(200)
    // The limit is the account's: another buyer is not affected.
    const { buyer: other } = await ultimateBuyer()
    expect((await request(other, last)).status).toBe(200)
  })

  it('a code host that is down does not use up the changes', async () => {
    const { buyer } = await ultimateBuyer()
    codeHost.failNext({ method: 'PUT', path: /\/collaborators\//, status: 503, count: USERNAME_CHANGES.points + 1 })
    for (let attempt = 0; attempt <= USERNAME_CHANGES.points; attempt += 1) {
      expect((await request(buyer, 'kit-outage')).body.errors[0].code).toBe('code_host_unavailable')
    }
    codeHost.clearFailures()
    expect((await request(buyer, 'kit-outage')).status).toBe(200)
  })
})

describe('who may read or write the username claims', () => {
  it("customers neither read (REST or GraphQL) nor write claims, their own or others'; support reads; only admins delete", async () => {
    const { buyer } = await ultimateBuyer()
    const claim = await payload().create({
      collection: 'repo_usernames',
      data: { usernameKey: `kit-private-${buyer.user.id}`, user: buyer.user.id },
    })
    const support = await createUser(payload(), 'support')
    const admin = await createUser(payload(), 'admin')

    for (const who of [null, buyer]) {
      expect((await api('GET', '/repo_usernames', { as: who })).status).toBe(403)
      expect((await api('GET', `/repo_usernames/${claim.id}`, { as: who })).status).toBe(403)
      expect(
        (await api('POST', '/repo_usernames', { as: who, body: { usernameKey: 'kit-grab', user: buyer.user.id } }))
          .status,
      ).toBe(403)
      expect(
        (await api('PATCH', `/repo_usernames/${claim.id}`, { as: who, body: { usernameKey: 'kit-moved' } })).status,
      ).toBe(403)
      expect((await api('DELETE', `/repo_usernames/${claim.id}`, { as: who })).status).toBe(403)
      const graphql = await api('POST', '/graphql', {
        as: who,
        body: { query: '{ RepoUsernames { docs { id usernameKey } } }' },
      })
      expect(JSON.stringify(graphql.body)).not.toContain('kit-private')
    }
    expect((await api('GET', `/repo_usernames/${claim.id}`, { as: support })).body.usernameKey).toBe(
      `kit-private-${buyer.user.id}`,
    )
    expect(
      (await api('PATCH', `/repo_usernames/${claim.id}`, { as: support, body: { usernameKey: 'kit-moved' } })).status,
    ).toBe(403)
    expect((await api('DELETE', `/repo_usernames/${claim.id}`, { as: support })).status).toBe(403)
    expect((await api('DELETE', `/repo_usernames/${claim.id}`, { as: admin })).status).toBe(200)
  })
})

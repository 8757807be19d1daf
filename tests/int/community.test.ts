import '../support/billing-env'
import '../support/webhooks-env'
import '../support/discord-env'

import { beforeAll, describe, expect, it } from 'vitest'

import { queueDueChecks } from '../../src/community/jobs'
import { syncCommunityRoles } from '../../src/community/sync'
import { runtimeOf } from '../../src/config/runtime'
import { RATE_LIMITS } from '../../src/auth/rate-limit'
import { productionProblems } from '../../src/config/env'
import { PRICES, smtp, standIn } from '../support/billing-env'
import { buy, rows, seedStandInPlans } from '../support/billing'
import { DISCORD, discord } from '../support/discord-env'
import { grantLicense } from '../support/licenses'
import { api, createUser, graphql, type TestUser, usePayload } from '../support/payload'
import { receiver } from '../support/webhooks-env'

const payload = usePayload()
const runJobs = async () => {
  await payload().jobs.run({ limit: 200 })
  // Outbound webhook deliveries have a queue of their own.
  await payload().jobs.run({ queue: 'webhooks', limit: 200 })
}
const community = () => runtimeOf(payload(), 'community')

let nextDiscordUser = 0
const discordUser = () => discord.addUser({ username: `buyer-${(nextDiscordUser += 1)}` })

const planId = async (slug: string) =>
  (await payload().find({ collection: 'plans', where: { slug: { equals: slug } }, limit: 1, depth: 0 })).docs[0]!.id

beforeAll(async () => {
  await seedStandInPlans(payload())
  // Standard gives the Buyers role, Ultimate its own; Pro gives none.
  await payload().update({
    collection: 'plans',
    id: await planId('standard'),
    data: { discordRoleId: DISCORD.roles.buyers },
  })
  await payload().update({
    collection: 'plans',
    id: await planId('ultimate'),
    data: { discordRoleId: DISCORD.roles.ultimate },
  })
  await payload().create({
    collection: 'webhook_endpoints',
    data: { url: `${receiver.url}/community`, events: ['community.granted', 'community.revoked'], enabled: true },
    overrideAccess: true,
  })
})

/** Connect as a customer does: the connect endpoint, the consent page's Authorize as `discordId`, the callback. */
const connect = async (who: TestUser, discordId: string, tamper: { cookie?: string; state?: string } = {}) => {
  const start = await api('GET', '/community/discord/connect', { as: who })
  expect(start.status, JSON.stringify(start.body)).toBe(302)
  const location = start.headers.get('location')!
  const cookie = start.headers.get('set-cookie')!.split(';')[0]!
  const back = new URL(await discord.approve(location, discordId))
  if (tamper.state) back.searchParams.set('state', tamper.state)
  // As a browser comes back from Discord: a cross-site navigation, on which Payload reads no session.
  const callback = await api('GET', `/community/discord/callback${back.search}`, {
    as: null,
    headers: { cookie: tamper.cookie ?? cookie },
  })
  expect(callback.status).toBe(302)
  const landed = new URL(callback.headers.get('location')!)
  return { outcome: landed.searchParams.get('community'), location, cookie, back, callback }
}

const linkOf = async (who: TestUser) =>
  (
    await payload().find({
      collection: 'discord_links',
      where: { user: { equals: who.user.id } },
      depth: 0,
      showHiddenFields: true,
    })
  ).docs[0]
const grantsOf = async (who: TestUser) => rows(payload(), 'community_grants', { user: { equals: who.user.id } })
const rolesOf = (discordId: string) => discord.member(discordId)?.roles ?? null
const customer = async (plan: 'standard' | 'ultimate' | 'pro' | null) => {
  const who = await createUser(payload(), 'customer')
  if (plan) await grantLicense(payload(), who, plan, 'active')
  return who
}
const eventsOfType = (type: string) =>
  receiver.received.filter((record) => (JSON.parse(record.body) as { type?: string }).type === type)
const roleCalls = (method: string, discordId: string) =>
  discord.requests.filter(
    (request) => request.method === method && request.path.includes(`/members/${discordId}/roles/`),
  ).length

/** Wait until Discord holds a request matching `path` (a `delayMs` rule): the interleaving is then certain. */
const heldAtDiscord = async (method: string, path: RegExp) => {
  for (let i = 0; i < 400; i += 1) {
    if (
      discord.requests.some((request) => request.method === method && path.test(request.path) && request.status === 0)
    )
      return
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
  throw new Error(`Discord never received ${method} ${path}`)
}

describe('connecting Discord', () => {
  it('401 signed out; 403 feature_required without a license whose plan gives a role', async () => {
    expect((await api('GET', '/community/discord/connect', { as: null })).status).toBe(401)
    for (const plan of [null, 'pro'] as const) {
      const who = await customer(plan)
      const answer = await api('GET', '/community/discord/connect', { as: who })
      expect(answer.status).toBe(403)
      expect(answer.body.errors[0].code).toBe('feature_required')
    }
    const revoked = await createUser(payload(), 'customer')
    await grantLicense(payload(), revoked, 'standard', 'revoked')
    expect((await api('GET', '/community/discord/connect', { as: revoked })).status).toBe(403)
  })

  it(`${RATE_LIMITS['community_connect:account'].points} joins in 10 minutes per account, then 429 and no state stored`, async () => {
    const who = await customer('standard')
    const limit = RATE_LIMITS['community_connect:account'].points
    for (let i = 0; i < limit; i += 1)
      expect((await api('GET', '/community/discord/connect', { as: who })).status).toBe(302)
    const refused = await api('GET', '/community/discord/connect', { as: who })
    expect(refused.status).toBe(429)
    expect(refused.body.errors[0].code).toBe('rate_limited')
    const states = await payload().find({
      collection: 'auth_tokens',
      where: { and: [{ user: { equals: who.user.id } }, { purpose: { equals: 'discord_state' } }] },
      limit: 100,
      overrideAccess: true,
    })
    expect(states.totalDocs).toBe(limit)
  })

  it('joins the server with the plan role: consent with PKCE, a state cookie scoped to the callback, the token used once and revoked', async () => {
    const who = await customer('standard')
    const account = discordUser()
    discord.clearRequests()
    const { outcome, location, cookie, callback } = await connect(who, account.id)
    expect(outcome).toBe('joined')
    const authorize = new URL(location)
    expect(`${authorize.origin}${authorize.pathname}`).toBe(discord.authorizeUrl)
    expect(authorize.searchParams.get('client_id')).toBe(DISCORD.clientId)
    expect(authorize.searchParams.get('scope')).toBe('identify guilds.join')
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256')
    expect(authorize.searchParams.get('redirect_uri')).toBe('http://localhost:3000/api/community/discord/callback')
    expect(cookie.startsWith('kit-discord=')).toBe(true)
    expect(callback.headers.get('set-cookie')).toMatch(/kit-discord=;.*Max-Age=0/)
    expect(rolesOf(account.id)).toEqual([DISCORD.roles.buyers])
    expect(await linkOf(who)).toMatchObject({ discordUserId: account.id, discordUsername: account.username })
    expect((await grantsOf(who)).map((grant) => [grant.roleId, grant.state])).toEqual([
      [DISCORD.roles.buyers, 'granted'],
    ])
    // The customer's token: used for /users/@me and the join, then revoked at Discord.
    const kinds = discord.requests.map((request) => `${request.method} ${request.path} ${request.authorization}`)
    expect(kinds).toContain('POST /api/v10/oauth2/token basic')
    expect(kinds.some((kind) => /^GET \/api\/v10\/users\/(@|%40)me bearer$/.test(kind))).toBe(true)
    expect(kinds).toContain(`PUT /api/v10/guilds/${DISCORD.guildId}/members/${account.id} bot`)
    expect(kinds).toContain('POST /api/v10/oauth2/token/revoke basic')
    await runJobs()
    expect(eventsOfType('community.granted').some((record) => JSON.stringify(record.body).includes(account.id))).toBe(
      true,
    )
    // The customer's token is nowhere in the database (links, grants, jobs and their logs, events, tokens).
    const token = discord.issuedAccessTokens.at(-1)!
    expect(token).toMatch(/^[A-Za-z0-9]{30}$/)
    const { rows: columns } = await payload().db.pool.query<{ table_name: string; column_name: string }>(
      `SELECT c.table_name, c.column_name FROM information_schema.columns c
         JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
       WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE' AND c.data_type IN ('character varying', 'text', 'jsonb', 'json')`,
    )
    expect(columns.length).toBeGreaterThan(50)
    const whereIs = async (text: string) =>
      (
        await payload().db.pool.query<{ at: string }>(
          columns
            .map(
              ({ table_name, column_name }) =>
                `SELECT '${table_name}.${column_name}' AS at FROM "${table_name}" WHERE "${column_name}"::text LIKE $1`,
            )
            .join(' UNION ALL '),
          [`%${text}%`],
        )
      ).rows.map((row) => row.at)
    // The scan finds what is stored (the account's id), and not the token.
    expect(await whereIs(account.id)).toContain('discord_links.discord_user_id')
    expect(await whereIs(token)).toEqual([])
    // The dashboard's API view.
    const status = await api('GET', '/community/discord', { as: who })
    expect(status.body).toMatchObject({
      entitled: true,
      link: { discordUserId: account.id },
      grants: [{ roleId: DISCORD.roles.buyers, state: 'granted' }],
    })
  })

  it('a forged, tampered or replayed state, or another session’s callback, links nothing', async () => {
    const who = await customer('standard')
    const account = discordUser()
    // A state that was never issued, with the cookie of a real connect.
    expect((await connect(who, account.id, { state: 'forged-state-0123456789abcdefghij' })).outcome).toBe(
      'invalid_state',
    )
    // A cookie whose signature does not match.
    expect((await connect(who, account.id, { cookie: 'kit-discord=aaaa.bbbb.cccc' })).outcome).toBe('invalid_state')
    // Replayed: the same callback twice.
    const first = await connect(who, account.id)
    expect(first.outcome).toBe('joined')
    const again = await api('GET', `/community/discord/callback${first.back.search}`, {
      as: who,
      headers: { cookie: first.cookie },
    })
    expect(new URL(again.headers.get('location')!).searchParams.get('community')).toBe('invalid_state')
    // Another customer's session finishing someone else's connect.
    const victim = await customer('standard')
    const other = discordUser()
    const start = await api('GET', '/community/discord/connect', { as: victim })
    const back = new URL(await discord.approve(start.headers.get('location')!, other.id))
    const stolen = await api('GET', `/community/discord/callback${back.search}`, {
      as: who,
      headers: { cookie: start.headers.get('set-cookie')!.split(';')[0]! },
    })
    expect(new URL(stolen.headers.get('location')!).searchParams.get('community')).toBe('invalid_state')
    // Without the cookie of the browser that asked.
    const anonymous = await api('GET', `/community/discord/callback${back.search}`, { as: null })
    expect(new URL(anonymous.headers.get('location')!).searchParams.get('community')).toBe('invalid_state')
    expect(await linkOf(victim)).toBeUndefined()
    expect(rolesOf(other.id)).toBeNull()
    // Cancelled on Discord's page.
    const denied = await api('GET', '/community/discord/connect', { as: victim })
    const deniedBack = new URL(await discord.deny(denied.headers.get('location')!))
    const cancelled = await api('GET', `/community/discord/callback${deniedBack.search}`, {
      as: victim,
      headers: { cookie: denied.headers.get('set-cookie')!.split(';')[0]! },
    })
    expect(new URL(cancelled.headers.get('location')!).searchParams.get('community')).toBe('access_denied')
    expect(await linkOf(victim)).toBeUndefined()
  })

  it('one Discord account per customer: a second customer is refused; another account takes the roles off the first', async () => {
    const alice = await customer('standard')
    const bob = await customer('standard')
    const shared = discordUser()
    expect((await connect(alice, shared.id)).outcome).toBe('joined')
    expect((await connect(bob, shared.id)).outcome).toBe('discord_already_linked')
    expect(await linkOf(bob)).toBeUndefined()

    const second = discordUser()
    expect((await connect(alice, second.id)).outcome).toBe('joined')
    expect(rolesOf(shared.id)).toEqual([])
    expect(rolesOf(second.id)).toEqual([DISCORD.roles.buyers])
    expect((await grantsOf(alice)).map((grant) => grant.discordUserId)).toEqual([second.id])
    // The first account is free again.
    expect((await connect(bob, shared.id)).outcome).toBe('joined')
    expect(rolesOf(shared.id)).toEqual([DISCORD.roles.buyers])
  })

  it('Discord down at the callback: discord_unavailable, nothing linked', async () => {
    const who = await customer('standard')
    const account = discordUser()
    discord.failNext({ method: 'PUT', path: `/api/v10/guilds/${DISCORD.guildId}/members/${account.id}`, status: 502 })
    expect((await connect(who, account.id)).outcome).toBe('discord_unavailable')
    expect(await linkOf(who)).toBeUndefined()
  })
})

describe('revocation follows entitlements', () => {
  it('a refund takes the role off; a second license of the plan keeps it until it ends too', async () => {
    const buyer = await createUser(payload(), 'customer')
    const purchase = await buy(PRICES.standard, { as: buyer })
    const account = discordUser()
    expect((await connect(buyer, account.id)).outcome).toBe('joined')
    const extra = await grantLicense(payload(), buyer, 'standard', 'active')

    await standIn.refund(purchase.events.find((event) => event.type === 'charge.succeeded')!.data.object.id)
    await runJobs()
    expect(rolesOf(account.id)).toEqual([DISCORD.roles.buyers])

    await payload().update({ collection: 'licenses', id: extra.id, data: { status: 'revoked' } })
    await runJobs()
    expect(rolesOf(account.id)).toEqual([])
    expect(await grantsOf(buyer)).toEqual([])
    expect(
      eventsOfType('community.revoked').some(
        (record) =>
          JSON.stringify(record.body).includes(account.id) && JSON.stringify(record.body).includes('entitlement_ended'),
      ),
    ).toBe(true)
    // Still linked: a new purchase gives its plan's role without a new connect.
    await buy(PRICES.ultimate, { as: buyer })
    await runJobs()
    expect(rolesOf(account.id)).toEqual([DISCORD.roles.ultimate])
  })

  it('an upgrade to another plan swaps the roles', async () => {
    const who = await customer(null)
    const license = await grantLicense(payload(), who, 'standard', 'active')
    const account = discordUser()
    expect((await connect(who, account.id)).outcome).toBe('joined')
    await payload().update({ collection: 'licenses', id: license.id, data: { plan: await planId('ultimate') } })
    await runJobs()
    expect(rolesOf(account.id)).toEqual([DISCORD.roles.ultimate])
  })

  it('a member who left the server counts as done when the role is taken back', async () => {
    const who = await customer(null)
    const license = await grantLicense(payload(), who, 'standard', 'active')
    const account = discordUser()
    expect((await connect(who, account.id)).outcome).toBe('joined')
    discord.leaveGuild(account.id)
    await payload().update({ collection: 'licenses', id: license.id, data: { status: 'revoked' } })
    await runJobs()
    expect(await grantsOf(who)).toEqual([])
    expect(rolesOf(account.id)).toBeNull()
  })

  it('two processes syncing one customer at once: one takes the role off, the other leaves a request the first answers', async () => {
    const who = await customer(null)
    const license = await grantLicense(payload(), who, 'standard', 'active')
    const account = discordUser()
    expect((await connect(who, account.id)).outcome).toBe('joined')
    await runJobs()
    await payload().update({ collection: 'licenses', id: license.id, data: { status: 'revoked' } })
    // The first holds its DELETE at Discord; the second starts once the lease is provably taken.
    discord.failNext({ method: 'DELETE', path: /\/roles\//, delayMs: 400 })
    const deletesBefore = roleCalls('DELETE', account.id)
    const putsBefore = roleCalls('PUT', account.id)
    const first = syncCommunityRoles(payload(), community().deps, who.user.id)
    await heldAtDiscord('DELETE', new RegExp(`/members/${account.id}/roles/`))
    expect((await linkOf(who))?.syncLeaseUntil).toBeTruthy()
    // Meanwhile the customer buys again: the second sync cannot run, and leaves its request.
    await grantLicense(payload(), who, 'standard', 'active')
    expect((await syncCommunityRoles(payload(), community().deps, who.user.id)).outcome).toBe('deferred')
    // The first took the role off once, then answered the request before letting go: the role is back.
    const outcome = await first
    expect(outcome.revoked).toEqual([DISCORD.roles.buyers])
    expect(outcome.granted).toEqual([DISCORD.roles.buyers])
    expect(roleCalls('DELETE', account.id) - deletesBefore).toBe(1)
    expect(roleCalls('PUT', account.id) - putsBefore).toBe(1)
    expect(rolesOf(account.id)).toEqual([DISCORD.roles.buyers])
    expect((await linkOf(who))?.syncLeaseUntil).toBeFalsy()
  })

  for (const moment of ['while the callback adds the member', 'while the callback gives the role'] as const) {
    it(`a refund racing a connect (${moment}) ends with no role`, async () => {
      const who = await customer(null)
      const license = await grantLicense(payload(), who, 'standard', 'active')
      const account = discordUser()
      const start = await api('GET', '/community/discord/connect', { as: who })
      const back = new URL(await discord.approve(start.headers.get('location')!, account.id))
      const held =
        moment === 'while the callback adds the member'
          ? new RegExp(`/members/${account.id}$`)
          : new RegExp(`/members/${account.id}/roles/`)
      discord.failNext({ method: 'PUT', path: held, delayMs: 500 })
      const callback = api('GET', `/community/discord/callback${back.search}`, {
        as: who,
        headers: { cookie: start.headers.get('set-cookie')!.split(';')[0]! },
      })
      await heldAtDiscord('PUT', held)
      await payload().update({ collection: 'licenses', id: license.id, data: { status: 'revoked' } })
      expect((await callback).status).toBe(302)
      await runJobs()
      expect(rolesOf(account.id)).toEqual([])
      expect((await grantsOf(who)).filter((grant) => grant.state === 'granted')).toEqual([])
    })
  }

  it('DISCORD_KICK_ON_REVOKE: a member left with no plan role leaves the server; one still entitled stays', async () => {
    const kicking = { ...community().deps, kickOnRevoke: true }
    const who = await customer(null)
    const standard = await grantLicense(payload(), who, 'standard', 'active')
    const ultimate = await grantLicense(payload(), who, 'ultimate', 'active')
    const account = discordUser()
    expect((await connect(who, account.id)).outcome).toBe('joined')
    expect(rolesOf(account.id)?.sort()).toEqual([DISCORD.roles.buyers, DISCORD.roles.ultimate])
    await payload().update({ collection: 'licenses', id: standard.id, data: { status: 'revoked' } })
    await syncCommunityRoles(payload(), kicking, who.user.id)
    expect(rolesOf(account.id)).toEqual([DISCORD.roles.ultimate])
    await payload().update({ collection: 'licenses', id: ultimate.id, data: { status: 'revoked' } })
    await syncCommunityRoles(payload(), kicking, who.user.id)
    expect(discord.member(account.id)).toBeNull()
    await runJobs()
  })

  it('seat members get the role with their seat and lose it with it', async () => {
    const owner = await customer(null)
    const license = await grantLicense(payload(), owner, 'ultimate', 'active')
    const member = await createUser(payload(), 'customer')
    const [seat] = await payload()
      .db.create({
        collection: 'license_seats',
        data: { license: license.id, email: member.email.toLowerCase(), status: 'claimed', member: member.user.id },
      })
      .then((row) => [row as { id: number }])
    const account = discordUser()
    expect((await connect(member, account.id)).outcome).toBe('joined')
    expect(rolesOf(account.id)).toEqual([DISCORD.roles.ultimate])
    const staff = await createUser(payload(), 'support')
    const revoked = await api('POST', `/staff/license-seats/${seat!.id}/revoke`, {
      as: staff,
      body: { reason: 'left the team' },
    })
    expect(revoked.status, JSON.stringify(revoked.body)).toBe(200)
    await runJobs()
    expect(rolesOf(account.id)).toEqual([])
  })
})

describe('Discord refusals', () => {
  it('429 comes back after retry_after, as a new job', async () => {
    const who = await customer(null)
    const account = discordUser()
    discord.addMember(account.id)
    await payload().db.create({
      collection: 'discord_links',
      data: { user: who.user.id, discordUserId: account.id, discordUsername: account.username },
    })
    // Three seconds: longer than a turn of the queue on a loaded machine (0.2 s, rounded up to 1, was not).
    discord.failNext({ method: 'PUT', path: /\/roles\//, status: 429, retryAfter: 3 })
    await grantLicense(payload(), who, 'standard', 'active')
    await runJobs()
    expect(rolesOf(account.id)).toEqual([])
    const waiting = await payload().find({
      collection: 'payload-jobs',
      where: { and: [{ taskSlug: { equals: 'syncCommunityRoles' } }, { completedAt: { exists: false } }] },
      limit: 100,
      depth: 0,
    })
    const later = waiting.docs.find((job) => job.waitUntil && (job.input as { userId: number }).userId === who.user.id)
    expect(later).toBeTruthy()
    // Discord said when (retry_after, which @discordjs/rest rounds up to a second): the new job waits until then.
    const waitMs = new Date(later!.waitUntil!).getTime() - Date.now()
    expect(waitMs).toBeGreaterThan(0)
    await runJobs()
    expect(rolesOf(account.id)).toEqual([])
    await new Promise((resolve) => setTimeout(resolve, waitMs + 20))
    await runJobs()
    expect(rolesOf(account.id)).toEqual([DISCORD.roles.buyers])
  })

  it('a role above the bot fails the grant and emails the admins once for every customer it fails', async () => {
    const admin = await createUser(payload(), 'admin')
    await payload().update({
      collection: 'plans',
      id: await planId('pro'),
      data: { discordRoleId: DISCORD.roles.aboveBot },
    })
    try {
      const toAdmin = (message: (typeof smtp.messages)[number]) =>
        JSON.stringify(message.to ?? '').includes(admin.email)
      const before = smtp.messages.filter(
        (message) => toAdmin(message) && (message.subject ?? '').includes('Discord refused'),
      ).length
      for (let i = 0; i < 2; i += 1) {
        const who = await customer('pro')
        const account = discordUser()
        expect((await connect(who, account.id)).outcome).toBe('joined')
        expect((await grantsOf(who)).map((grant) => [grant.state, grant.lastError])).toEqual([
          ['failed', 'missing_permissions'],
        ])
        expect(rolesOf(account.id)).toEqual([])
      }
      await runJobs()
      const emails = smtp.messages.filter(
        (message) => toAdmin(message) && (message.subject ?? '').includes('Discord refused'),
      )
      expect(emails.length - before).toBe(1)
    } finally {
      await payload().update({ collection: 'plans', id: await planId('pro'), data: { discordRoleId: null } })
    }
  })

  it('a bad bot token: the staff sync answers 503 without the token, and the job log never holds it', async () => {
    const who = await customer('standard')
    const account = discordUser()
    expect((await connect(who, account.id)).outcome).toBe('joined')
    const staff = await createUser(payload(), 'support')
    discord.setBotToken('rotated-token')
    try {
      const answer = await api('POST', `/staff/users/${who.user.id}/community-sync`, {
        as: staff,
        body: { reason: 'customer says the role is missing' },
      })
      expect(answer.status).toBe(503)
      expect(answer.body.errors[0].code).toBe('discord_unavailable')
      expect(JSON.stringify(answer.body)).not.toContain(DISCORD.botToken)
      await payload().update({
        collection: 'licenses',
        where: { user: { equals: who.user.id } },
        data: { status: 'revoked' },
      })
      await runJobs()
      const jobs = await payload().find({ collection: 'payload-jobs', limit: 1000, depth: 0 })
      expect(JSON.stringify(jobs.docs)).not.toContain(DISCORD.botToken)
      expect(JSON.stringify(jobs.docs)).not.toContain(DISCORD.clientSecret)
    } finally {
      discord.setBotToken(DISCORD.botToken)
    }
    await runJobs()
  })
})

describe('the periodic check and staff', () => {
  it('gives back a role removed by hand, takes off a plan role nobody earned, and marks a member who left', async () => {
    const who = await customer('standard')
    const account = discordUser()
    expect((await connect(who, account.id)).outcome).toBe('joined')
    discord.removeRoleByHand(account.id, DISCORD.roles.buyers)
    discord.addRoleByHand(account.id, DISCORD.roles.ultimate)
    const link = await linkOf(who)
    await payload().db.updateOne({ collection: 'discord_links', id: link!.id, data: { lastSyncedAt: null } })
    expect(await queueDueChecks(payload(), 60)).toBeGreaterThan(0)
    // A second run (another instance) finds nothing new to queue for this customer.
    await queueDueChecks(payload(), 60)
    const queued = (
      await payload().find({
        collection: 'payload-jobs',
        where: { taskSlug: { equals: 'syncCommunityRoles' }, completedAt: { exists: false } },
        limit: 1000,
        depth: 0,
      })
    ).docs.filter((job) => {
      const input = job.input as { userId: number; check?: boolean }
      return input.userId === who.user.id && input.check === true
    })
    expect(queued).toHaveLength(1)
    await runJobs()
    expect(rolesOf(account.id)?.sort()).toEqual([DISCORD.roles.buyers])

    discord.leaveGuild(account.id)
    await payload().db.updateOne({ collection: 'discord_links', id: link!.id, data: { lastSyncedAt: null } })
    await queueDueChecks(payload(), 60)
    await runJobs()
    expect((await grantsOf(who)).map((grant) => [grant.state, grant.lastError])).toEqual([['failed', 'not_in_guild']])
  })

  it('staff sync: customers are refused; staff get the grants and an audit row', async () => {
    const who = await customer('standard')
    const account = discordUser()
    expect((await connect(who, account.id)).outcome).toBe('joined')
    discord.removeRoleByHand(account.id, DISCORD.roles.buyers)
    const refused = await api('POST', `/staff/users/${who.user.id}/community-sync`, { as: who, body: { reason: 'x' } })
    expect(refused.status).toBe(403)
    const staff = await createUser(payload(), 'support')
    const answer = await api('POST', `/staff/users/${who.user.id}/community-sync`, {
      as: staff,
      body: { reason: 'role missing' },
    })
    expect(answer.status, JSON.stringify(answer.body)).toBe(200)
    expect(answer.body.grants).toEqual([
      { roleId: DISCORD.roles.buyers, state: 'granted', discordUserId: account.id, lastError: null },
    ])
    expect(rolesOf(account.id)).toEqual([DISCORD.roles.buyers])
    const audit = await rows(payload(), 'audit_log', { id: { equals: answer.body.auditLogId } })
    expect(audit[0]).toMatchObject({
      action: 'user.community_sync',
      targetId: String(who.user.id),
      reason: 'role missing',
    })
    expect((await api('POST', '/staff/users/999999/community-sync', { as: staff, body: { reason: 'x' } })).status).toBe(
      404,
    )
  })

  it('disconnecting takes the roles off and forgets the account; customers read only their own link', async () => {
    const who = await customer('standard')
    const account = discordUser()
    expect((await connect(who, account.id)).outcome).toBe('joined')
    const other = await customer('standard')
    const mine = await linkOf(who)
    const read = await api('GET', `/discord_links/${mine!.id}`, { as: other })
    expect([403, 404]).toContain(read.status)
    const listed = await api('GET', '/discord_links', { as: other })
    expect(JSON.stringify(listed.body)).not.toContain(account.id)
    // GraphQL, with a where naming the other customer's account: nothing of theirs either.
    const viaGraphql = await graphql(
      `{ Discord_links(where: { discordUserId: { equals: "${account.id}" } }) { docs { id discordUserId } } Community_grants { docs { id discordUserId } } }`,
      { token: other.token },
    )
    expect(viaGraphql.errors, JSON.stringify(viaGraphql.errors)).toBeUndefined()
    expect(JSON.stringify(viaGraphql)).not.toContain(account.id)
    const own = await graphql(`{ Discord_links { docs { discordUserId } } }`, { token: who.token })
    expect(JSON.stringify(own), JSON.stringify(own).slice(0, 300)).toContain(account.id)
    expect((await api('PATCH', `/discord_links/${mine!.id}`, { as: who, body: { discordUserId: '1' } })).status).toBe(
      403,
    )
    expect((await api('DELETE', '/community/discord', { as: who })).status).toBe(204)
    expect(rolesOf(account.id)).toEqual([])
    expect(await linkOf(who)).toMatchObject({ discordUserId: null })
    expect((await api('DELETE', '/community/discord', { as: who })).status).toBe(204)
    expect((await api('DELETE', '/community/discord', { as: null })).status).toBe(401)
  })
})

describe('configuration', () => {
  it('production refuses a half-configured Discord, naming what is missing, and accepts all four or none', () => {
    const base = { NODE_ENV: 'production' }
    const discordProblems = (source: Record<string, string>) =>
      productionProblems({ ...base, ...source }).filter((problem) => problem.startsWith('DISCORD_'))
    expect(discordProblems({})).toEqual([])
    expect(
      discordProblems({
        DISCORD_BOT_TOKEN: 'x',
        DISCORD_GUILD_ID: '1400000000000000100',
        DISCORD_CLIENT_ID: 'c',
        DISCORD_CLIENT_SECRET: 's',
      }),
    ).toEqual([])
    const half = discordProblems({ DISCORD_BOT_TOKEN: 'secret-bot-token' })
    expect(half.map((problem) => problem.split(' ')[0])).toEqual([
      'DISCORD_GUILD_ID',
      'DISCORD_CLIENT_ID',
      'DISCORD_CLIENT_SECRET',
    ])
    expect(half.join(' ')).not.toContain('secret-bot-token')
  })
})

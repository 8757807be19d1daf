import './../support/billing-env'

import crypto from 'node:crypto'
import zlib from 'node:zlib'

import { renderToStaticMarkup } from 'react-dom/server'
import sharp from 'sharp'
import { beforeAll, describe, expect, it } from 'vitest'

import { CUSTOMER_JOINS } from '../../collections/CustomerView'
import { StaffDashboard } from '../../src/components/StaffDashboard'
import { hashApiKey } from '../../src/auth/api-keys'
import type { License } from '../../src/payload-types'
import { type DashboardData, formatMinorAmount, staffDashboardData, startOfWeek } from '../../src/staff/dashboard'
import { rows, seedStandInPlans } from '../support/billing'
import { codeHost, smtp } from '../support/billing-env'
import { grantLicense } from '../support/licenses'
import { type UntypedJson } from '../support/net'
import { api, createUser, graphql, type TestUser, usePayload } from '../support/payload'
import { recordQueries } from '../support/queries'
import { createRelease } from '../support/releases'

const payload = usePayload()

let admin: TestUser
let support: TestUser
let customer: TestUser

type Answer = { errors?: { code: string; message: string }[]; auditLogId?: number } & Record<string, UntypedJson>

beforeAll(async () => {
  await seedStandInPlans(payload())
  ;[admin, support, customer] = await Promise.all([
    createUser(payload(), 'admin'),
    createUser(payload(), 'support'),
    createUser(payload(), 'customer'),
  ])
})

const act = (path: string, who: TestUser | null, body?: unknown) =>
  api<Answer>('POST', `/staff${path}`, { as: who, ...(body === undefined ? {} : { body }) })

const auditRows = (collection: string, id: number) =>
  rows(payload(), 'audit_log', {
    and: [{ targetCollection: { equals: collection } }, { targetId: { equals: String(id) } }],
  })

const licenseById = (id: number) => payload().findByID({ collection: 'licenses', id, depth: 0 })

const licenseEmailJobs = async (licenseId: number) =>
  (
    await payload().find({
      collection: 'payload-jobs',
      where: { taskSlug: { equals: 'sendLicenseEmail' } },
      limit: 1000,
      depth: 0,
    })
  ).docs.filter((job) => (job.input as { licenseId?: number }).licenseId === licenseId)

const validate = async (key: string) =>
  (await api<{ code: string }>('POST', '/licenses/validate', { body: { key } })).body.code

/** A customer with an Ultimate license (repository access, API keys). */
const ultimateCustomer = async () => {
  const user = await createUser(payload(), 'customer')
  const license = await grantLicense(payload(), user, 'ultimate', 'active')
  return { user, license }
}

/** A customer's pending repository invitation for a fresh code-host account, asked through the customer endpoint. */
const pendingInvitation = async (login = `kit-staff-${crypto.randomBytes(4).toString('hex')}`) => {
  codeHost.addUser(login)
  const { user, license } = await ultimateCustomer()
  const asked = await api('POST', '/repo-access', { as: user, body: { username: login } })
  expect(asked.body).toEqual({ status: 'pending', username: login })
  const [row] = await rows(payload(), 'repo_access', { user: { equals: user.user.id } })
  return { user, license, login, row: row! }
}

/** A live API key of an Ultimate customer, created through the customer endpoint. */
const liveApiKey = async () => {
  const { user } = await ultimateCustomer()
  const created = await api<{ id: number; prefix: string; key: string }>('POST', '/account/api-keys', {
    as: user,
    body: { name: 'CI' },
  })
  expect(created.status).toBe(201)
  return { user, ...created.body }
}

/** One target of every action: an active license, a pending invitation, a live API key; and what they look like now. */
const targets = async () => {
  const { license, row } = await pendingInvitation()
  const key = await liveApiKey()
  const paths = [
    `/licenses/${license.id}/revoke`,
    `/licenses/${license.id}/restore`,
    `/licenses/${license.id}/resend-email`,
    `/repo-access/${row.id}/resend-invitation`,
    `/api-keys/${key.id}/revoke`,
  ]
  const unchanged = async () => {
    expect(await licenseById(license.id)).toMatchObject({ status: 'active', override: 'none' })
    expect(await licenseEmailJobs(license.id)).toEqual([])
    expect(await payload().findByID({ collection: 'repo_access', id: row.id, depth: 0 })).toMatchObject({
      status: 'pending',
      invitationId: row.invitationId,
    })
    expect((await payload().findByID({ collection: 'api_keys', id: key.id, depth: 0 })).revokedAt ?? null).toBeNull()
    expect(await auditRows('licenses', license.id)).toEqual([])
    expect(await auditRows('repo_access', row.id)).toEqual([])
    expect(await auditRows('api_keys', key.id)).toEqual([])
  }
  return { paths, unchanged }
}

const NOT_FOUND = [
  ['/licenses/%/revoke', 'license_not_found'],
  ['/licenses/%/restore', 'license_not_found'],
  ['/licenses/%/resend-email', 'license_not_found'],
  ['/repo-access/%/resend-invitation', 'repo_access_not_found'],
  ['/api-keys/%/revoke', 'api_key_not_found'],
] as const

describe('who may act', () => {
  it('every action: 401 anonymous, 403 forbidden for customers (whatever the body), nothing changes and no code-host call', async () => {
    const { paths, unchanged } = await targets()
    const calls = codeHost.state.requests.length
    for (const path of paths) {
      const anonymous = await act(path, null, { reason: 'because' })
      expect(anonymous.status, path).toBe(401)
      expect(anonymous.body.errors![0]!.code).toBe('unauthenticated')
      for (const body of [{ reason: 'because' }, { reason: '' }, undefined]) {
        const refused = await act(path, customer, body)
        expect(refused.status, path).toBe(403)
        expect(refused.body.errors![0]!.code).toBe('forbidden')
      }
    }
    expect(codeHost.state.requests.length).toBe(calls)
    await unchanged()
  })
})

describe('reasons', () => {
  const INVALID: [string, unknown][] = [
    ['missing', {}],
    ['no body', undefined],
    ['empty', { reason: '' }],
    ['blank', { reason: '   \n ' }],
    ['too long', { reason: 'x'.repeat(501) }],
    ['not text', { reason: 42 }],
  ]

  it.each(INVALID)('%s: 400 invalid_request for every action, and nothing changes', async (_label, body) => {
    const { paths, unchanged } = await targets()
    const calls = codeHost.state.requests.length
    for (const path of paths) {
      const answer = await act(path, support, body)
      expect(answer.status, path).toBe(400)
      expect(answer.body.errors![0]!.code).toBe('invalid_request')
      expect(answer.body.errors![0]!.message).toMatch(/^reason: /)
    }
    expect(codeHost.state.requests.length).toBe(calls)
    await unchanged()
  })

  it('500 characters is enough, and kept whole', async () => {
    const { license } = await ultimateCustomer()
    const reason = 'r'.repeat(500)
    const answer = await act(`/licenses/${license.id}/revoke`, support, { reason })
    expect(answer.status).toBe(200)
    expect((await auditRows('licenses', license.id))[0]!.reason).toBe(reason)
  })
})

describe('ids that do not exist', () => {
  it.each(NOT_FOUND)("%s: 404 with the action's code", async (path, code) => {
    for (const id of ['999999', 'abc', '1.5', '0x10']) {
      const answer = await act(path.replace('%', id), support, { reason: 'checking' })
      expect(answer.status, id).toBe(404)
      expect(answer.body.errors![0]!.code).toBe(code)
    }
  })
})

describe('revoke and restore a license', () => {
  it('revoke: the status follows, the reason and the actor are in the audit log, validation answers REVOKED', async () => {
    const { license } = await ultimateCustomer()
    expect(await validate(license.key)).toBe('VALID')
    const answer = await act(`/licenses/${license.id}/revoke`, support, {
      reason: '  Chargeback by phone, ticket 42  ',
    })
    expect(answer.status).toBe(200)
    expect(answer.body.license).toEqual({ id: license.id, status: 'revoked', override: 'revoked' })
    const [entry] = await auditRows('licenses', license.id)
    expect(answer.body.auditLogId).toBe(entry!.id)
    expect(entry).toMatchObject({
      action: 'license.revoke',
      actor: support.user.id,
      reason: 'Chargeback by phone, ticket 42',
      before: { status: 'active', override: 'none' },
      after: { status: 'revoked', override: 'revoked' },
    })
    expect(await licenseById(license.id)).toMatchObject({
      status: 'revoked',
      revokedReason: 'Chargeback by phone, ticket 42',
      revokedBy: support.user.id,
    })
    expect(await validate(license.key)).toBe('REVOKED')

    const again = await act(`/licenses/${license.id}/revoke`, support, { reason: 'twice' })
    expect(again.status).toBe(409)
    expect(again.body.errors![0]!.code).toBe('license_already_revoked')
    expect(await auditRows('licenses', license.id)).toHaveLength(1)
  })

  it('restore (also with the reason given last time): active again, audited; restoring an active license is 409', async () => {
    const { license } = await ultimateCustomer()
    expect((await act(`/licenses/${license.id}/revoke`, admin, { reason: 'Customer request' })).status).toBe(200)
    const restored = await act(`/licenses/${license.id}/restore`, support, { reason: 'Customer request' })
    expect(restored.status).toBe(200)
    expect(restored.body.license).toEqual({ id: license.id, status: 'active', override: 'active' })
    const entries = await auditRows('licenses', license.id)
    expect(entries.map((entry) => [entry.action, entry.actor, entry.reason])).toEqual([
      ['license.revoke', admin.user.id, 'Customer request'],
      ['license.restore', support.user.id, 'Customer request'],
    ])
    expect(await licenseById(license.id)).toMatchObject({ status: 'active', revokedAt: null, revokedBy: null })
    expect(await validate(license.key)).toBe('VALID')
    const again = await act(`/licenses/${license.id}/restore`, support, { reason: 'again' })
    expect(again.status).toBe(409)
    expect(again.body.errors![0]!.code).toBe('license_already_active')
  })

  it('restore brings back a license the processor suspended or revoked', async () => {
    for (const state of ['suspended', 'revoked', 'expired'] as const) {
      const user = await createUser(payload(), 'customer')
      const license = await grantLicense(payload(), user, 'standard', state)
      const answer = await act(`/licenses/${license.id}/restore`, support, { reason: `goodwill (${state})` })
      expect(answer.status, state).toBe(200)
      expect(answer.body.license.status).toBe('active')
    }
  })
})

describe('resend the license email', () => {
  it('queues the license email job once more, with an audit row; the customer gets the key again', async () => {
    const { user, license } = await ultimateCustomer()
    await payload().jobs.queue({ task: 'sendLicenseEmail', input: { licenseId: license.id } })
    await payload().jobs.run({ limit: 100 })
    const mails = () => smtp.messages.filter((message) => message.text?.includes(license.key))
    expect(mails()).toHaveLength(1)
    const firstSent = (await licenseById(license.id)).emailSentAt
    expect(firstSent).toBeTruthy()

    const answer = await act(`/licenses/${license.id}/resend-email`, support, { reason: 'Lost in spam' })
    expect(answer.status).toBe(200)
    expect(answer.body).toMatchObject({ license: { id: license.id }, to: user.email })
    const [entry] = await auditRows('licenses', license.id)
    expect(entry).toMatchObject({
      id: answer.body.auditLogId,
      action: 'license.resend_email',
      actor: support.user.id,
      reason: 'Lost in spam',
    })
    expect(entry!.before).toEqual({ emailSentAt: firstSent })
    expect(await licenseEmailJobs(license.id)).toHaveLength(1)

    await payload().jobs.run({ limit: 100 })
    await smtp.waitFor(() => mails().length === 2)
    expect(mails()[1]!.to).toMatchObject({ text: user.email })
    expect((await licenseById(license.id)).emailSentAt).toBeTruthy()
  })

  it('refused for a license that is not active (409 license_not_active), nothing queued', async () => {
    const user = await createUser(payload(), 'customer')
    const license = await grantLicense(payload(), user, 'standard', 'revoked')
    const answer = await act(`/licenses/${license.id}/resend-email`, support, { reason: 'asked' })
    expect(answer.status).toBe(409)
    expect(answer.body.errors![0]!.code).toBe('license_not_active')
    expect(await licenseEmailJobs(license.id)).toEqual([])
    expect(await auditRows('licenses', license.id)).toEqual([])
  })
})

describe('resend the repository invitation', () => {
  it('withdraws the pending invitation and sends a new one through the code host, with an audit row', async () => {
    const { row, login } = await pendingInvitation()
    const first = row.invitationId!
    const answer = await act(`/repo-access/${row.id}/resend-invitation`, support, { reason: 'Invitation expired' })
    expect(answer.status).toBe(200)
    expect(answer.body.repoAccess).toEqual({ id: row.id, status: 'pending', username: login })
    const updated = await payload().findByID({ collection: 'repo_access', id: row.id, depth: 0 })
    expect(updated.invitationId).not.toBe(first)
    const invitations = [...codeHost.state.invitations.values()].filter((invitation) => invitation.login === login)
    expect(invitations.map((invitation) => invitation.id)).toEqual([updated.invitationId])
    const [entry] = await auditRows('repo_access', row.id)
    expect(entry).toMatchObject({
      id: answer.body.auditLogId,
      action: 'repo_access.resend_invitation',
      actor: support.user.id,
      reason: 'Invitation expired',
      before: { status: 'pending', invitationId: first },
      after: { status: 'pending', invitationId: updated.invitationId },
    })
  })

  it('an invitation accepted meanwhile makes a collaborator; a collaborator has nothing to resend (409)', async () => {
    const { row, login } = await pendingInvitation()
    codeHost.accept(login)
    const answer = await act(`/repo-access/${row.id}/resend-invitation`, support, { reason: 'Says no email came' })
    expect(answer.status).toBe(200)
    expect(answer.body.repoAccess.status).toBe('collaborator')
    expect(codeHost.state.collaborators.has(login)).toBe(true)
    const again = await act(`/repo-access/${row.id}/resend-invitation`, support, { reason: 'again' })
    expect(again.status).toBe(409)
    expect(again.body.errors![0]!.code).toBe('already_collaborator')
    expect(await auditRows('repo_access', row.id)).toHaveLength(1)
  })

  it('a customer whose license no longer opens the repository: 409 plan_required, no code-host call', async () => {
    const { row, license } = await pendingInvitation()
    await payload().update({ collection: 'licenses', id: license.id, data: { status: 'expired' } })
    const calls = codeHost.state.requests.length
    const answer = await act(`/repo-access/${row.id}/resend-invitation`, support, { reason: 'asked' })
    expect(answer.status).toBe(409)
    expect(answer.body.errors![0]!.code).toBe('plan_required')
    expect(codeHost.state.requests.length).toBe(calls)
    expect(await auditRows('repo_access', row.id)).toEqual([])
  })

  it('a code-host failure: 502 code_host_unavailable, recorded as the last error, nothing audited', async () => {
    const { row } = await pendingInvitation()
    codeHost.failNext({ path: /\/collaborators\//, status: 500, count: 3 })
    try {
      const answer = await act(`/repo-access/${row.id}/resend-invitation`, support, { reason: 'retry' })
      expect(answer.status).toBe(502)
      expect(answer.body.errors![0]!.code).toBe('code_host_unavailable')
    } finally {
      codeHost.clearFailures()
    }
    const after = await payload().findByID({ collection: 'repo_access', id: row.id, depth: 0 })
    expect(after).toMatchObject({
      status: 'pending',
      invitationId: row.invitationId,
      lastError: 'code_host_unavailable',
    })
    expect(await auditRows('repo_access', row.id)).toEqual([])
  })
})

describe("revoke a customer's API key", () => {
  it('sets revokedAt with an audit row; the key stops working at once; the answer names the prefix only', async () => {
    const key = await liveApiKey()
    const bearer = { authorization: `Bearer ${key.key}` }
    expect((await api('GET', '/licenses', { headers: bearer })).status).toBe(200)
    const answer = await act(`/api-keys/${key.id}/revoke`, support, { reason: 'Key posted in a public repo' })
    expect(answer.status).toBe(200)
    expect(answer.body.apiKey).toMatchObject({ id: key.id, prefix: key.prefix })
    expect(JSON.stringify(answer.body)).not.toContain(hashApiKey(key.key))
    const stored = await payload().findByID({ collection: 'api_keys', id: key.id, depth: 0 })
    expect(stored.revokedAt).toBe(answer.body.apiKey.revokedAt)
    const [entry] = await auditRows('api_keys', key.id)
    expect(entry).toMatchObject({
      id: answer.body.auditLogId,
      action: 'api_key.revoke',
      actor: support.user.id,
      reason: 'Key posted in a public repo',
    })
    const refused = await api<Answer>('GET', '/licenses', { headers: bearer })
    expect(refused.status).toBe(401)
    expect(refused.body.errors![0]!.code).toBe('invalid_api_key')
    const again = await act(`/api-keys/${key.id}/revoke`, support, { reason: 'again' })
    expect(again.status).toBe(409)
    expect(again.body.errors![0]!.code).toBe('api_key_already_revoked')
  })

  it("an API key opens no staff action, not even a staff member's own key", async () => {
    const key = await liveApiKey()
    const answer = await api<Answer>('POST', `/staff/api-keys/${key.id}/revoke`, {
      headers: { authorization: `Bearer ${key.key}` },
      body: { reason: 'self' },
    })
    expect(answer.status).toBe(403)
    expect(answer.body.errors![0]!.code).toBe('api_key_not_allowed')
  })
})

describe('the customer view', () => {
  let shopper: Awaited<ReturnType<typeof liveApiKey>>
  let license: License

  beforeAll(async () => {
    shopper = await liveApiKey()
    license = (await rows(payload(), 'licenses', { user: { equals: shopper.user.user.id } }))[0]!
    await payload().create({
      collection: 'payment_history',
      data: {
        user: shopper.user.user.id,
        processorPaymentId: `pi_view_${crypto.randomBytes(4).toString('hex')}`,
        amount: 29900,
        currency: 'usd',
        paymentType: 'one_time',
        status: 'succeeded',
        paidAt: new Date().toISOString(),
      },
    })
    await payload().create({
      collection: 'support_requests',
      data: { subject: 'Help', message: 'Please', user: shopper.user.user.id, priority: 'high', status: 'open' },
    })
  })

  it('support reads every join of a user over REST: licenses, payments, support requests, API keys by prefix (never the hash)', async () => {
    const view = await api<Record<string, { docs: Record<string, unknown>[] }>>(
      'GET',
      `/users/${shopper.user.user.id}?depth=1`,
      { as: support },
    )
    expect(view.status).toBe(200)
    for (const name of CUSTOMER_JOINS) expect(view.body[name], name).toMatchObject({ docs: expect.any(Array) })
    expect(view.body.licenses!.docs.map((doc) => doc.id)).toEqual([license.id])
    expect(view.body.payments!.docs.map((doc) => doc.amount)).toEqual([29900])
    expect(view.body.supportRequests!.docs.map((doc) => doc.subject)).toEqual(['Help'])
    const [apiKey] = view.body.apiKeys!.docs
    expect(apiKey).toMatchObject({ id: shopper.id, prefix: shopper.prefix, name: 'CI', revokedAt: null })
    expect(apiKey).toHaveProperty('lastUsedAt')
    expect(apiKey).toHaveProperty('createdAt')
    expect(apiKey).not.toHaveProperty('keyHash')
    expect(JSON.stringify(view.body)).not.toContain(hashApiKey(shopper.key))
  })

  it('support reads them over GraphQL too', async () => {
    const answer = await graphql(
      `{ User(id: ${shopper.user.user.id}) { licenses { docs { id } } apiKeys { docs { prefix } } } }`,
      support,
    )
    expect(answer.errors).toBeUndefined()
    expect(answer.data!.User).toEqual({
      licenses: { docs: [{ id: license.id }] },
      apiKeys: { docs: [{ prefix: shopper.prefix }] },
    })
  })

  it('a customer gets none of them: /api/users/me, their own user (even asking for joins), lists, GraphQL', async () => {
    const self = shopper.user
    const answers = [
      (await api('GET', '/users/me', { as: self })).body.user,
      (await api('GET', `/users/${self.user.id}`, { as: self })).body,
      (await api('GET', `/users/${self.user.id}?joins[licenses][limit]=5&depth=1`, { as: self })).body,
      (await api('GET', '/users?depth=1', { as: self })).body.docs[0],
    ]
    for (const answer of answers) {
      expect(answer.id).toBe(self.user.id)
      for (const name of CUSTOMER_JOINS) expect(answer, name).not.toHaveProperty(name)
    }
    const joins = CUSTOMER_JOINS.map((name) => `${name} { docs { id } }`).join(' ')
    const gql = await graphql(
      `{ meUser { user { id ${joins} } } User(id: ${self.user.id}) { id ${joins} } Users { docs { id ${joins} } } }`,
      self,
    )
    expect(gql.errors).toBeUndefined()
    const data = gql.data as unknown as {
      meUser: { user: Record<string, unknown> }
      User: Record<string, unknown>
      Users: { docs: Record<string, unknown>[] }
    }
    for (const user of [data.meUser.user, data.User, data.Users.docs[0]!]) {
      for (const name of CUSTOMER_JOINS) expect(user[name], name).toBeNull()
    }
  })

  /** The SQL statements `run`'s in-process request sends through the pool (not another test's, still running). */
  const statements = (run: () => Promise<unknown>) => recordQueries(payload(), run)
  const JOINED_TABLES =
    /"(licenses|one_time_purchases|user_subscriptions|payment_history|downloads|template_downloads|repo_access|support_requests|api_keys)"/

  it('GET /api/users/me for a customer runs no join query: two statements (the session user and me), users only', async () => {
    const texts = await statements(() => api('GET', '/users/me', { as: shopper.user }))
    expect(texts).toHaveLength(2)
    for (const text of texts) {
      expect(text).toMatch(/from "users"/)
      expect(text).not.toMatch(JOINED_TABLES)
    }
    // The measure sees joins when they run: support opening the same user.
    const staffTexts = await statements(() => api('GET', `/users/${shopper.user.user.id}`, { as: support }))
    expect(staffTexts.some((text) => JOINED_TABLES.test(text))).toBe(true)
  })

  it('no authenticated request loads the joins with its user (here a customer reading licenses)', async () => {
    const texts = await statements(() => api('GET', '/licenses', { as: shopper.user }))
    const userReads = texts.filter((text) => /from "users"/.test(text))
    expect(userReads.length).toBeGreaterThan(0)
    for (const text of userReads) expect(text).not.toMatch(JOINED_TABLES)
  })
})

describe('the dashboard', () => {
  let NOW = new Date()
  const DAY = 24 * 60 * 60 * 1000
  const ago = (days: number) => new Date(NOW.getTime() - days * DAY).toISOString()
  const payment = (data: {
    amount: number
    currency: string
    status?: 'succeeded' | 'failed'
    refundedAmount?: number
    paidAt: string
  }) =>
    payload().create({
      collection: 'payment_history',
      data: {
        processorPaymentId: `pi_dash_${crypto.randomBytes(5).toString('hex')}`,
        paymentType: 'one_time',
        status: 'succeeded',
        ...data,
      },
    })

  const delta = (before: DashboardData, after: DashboardData) => ({
    sales: Object.fromEntries(
      after.sales.byCurrency.map((row) => {
        const old = before.sales.byCurrency.find((entry) => entry.currency === row.currency)
        return [
          row.currency,
          {
            payments: row.payments - (old?.payments ?? 0),
            gross: row.gross - (old?.gross ?? 0),
            refunded: row.refunded - (old?.refunded ?? 0),
            net: row.net - (old?.net ?? 0),
          },
        ]
      }),
    ),
    licenses: Object.fromEntries(
      after.licenses.byPlan.map((row) => [
        row.plan,
        row.active - (before.licenses.byPlan.find((entry) => entry.plan === row.plan)?.active ?? 0),
      ]),
    ),
    total: after.licenses.total - before.licenses.total,
    releases: after.downloads.releases - before.downloads.releases,
    templates: after.downloads.templates - before.downloads.templates,
    failed: after.failedEvents.total - before.failedEvents.total,
  })

  it('sales of the last 30 days by currency, active licenses by plan, downloads this week, failed events', async () => {
    NOW = new Date()
    const before = await staffDashboardData(payload(), NOW)
    await payment({ amount: 14900, currency: 'usd', paidAt: ago(1) })
    await payment({ amount: 29900, currency: 'usd', refundedAmount: 10000, paidAt: ago(29) })
    await payment({ amount: 9900, currency: 'USD', status: 'failed', paidAt: ago(2) })
    await payment({ amount: 99900, currency: 'usd', paidAt: ago(31) })
    await payment({ amount: 5000, currency: 'jpy', paidAt: ago(3) })
    await payment({ amount: 12000, currency: 'eur', paidAt: ago(0.5) })

    const buyer = await createUser(payload(), 'customer')
    await grantLicense(payload(), buyer, 'standard', 'active')
    await grantLicense(payload(), buyer, 'standard', 'active')
    await grantLicense(payload(), buyer, 'pro', 'active')
    for (const state of ['lapsed', 'revoked', 'suspended', 'expired'] as const)
      await grantLicense(payload(), buyer, 'ultimate', state)

    const { release } = await createRelease(payload(), `9.${crypto.randomInt(1000)}.0`)
    const license = (await rows(payload(), 'licenses', { user: { equals: buyer.user.id } }))[0]!
    const downloads = await Promise.all(
      [0, 1, 2].map(() =>
        payload().create({
          collection: 'downloads',
          data: { user: buyer.user.id, license: license.id, release: release.id, version: release.version },
        }),
      ),
    )
    // One of them before this week began.
    const lastWeek = new Date(startOfWeek(NOW).getTime() - 60_000).toISOString()
    await payload().db.pool.query('UPDATE downloads SET created_at = $1 WHERE id = $2', [lastWeek, downloads[0]!.id])

    const bytes = zlib.gzipSync(crypto.randomBytes(256))
    const template = await payload().create({
      collection: 'templates',
      data: { name: 'Dash', slug: `dash-${crypto.randomBytes(3).toString('hex')}`, category: 'dashboard' },
      file: { data: bytes, mimetype: 'application/gzip', name: 'dash.tar.gz', size: bytes.length },
    })
    await payload().create({ collection: 'template_downloads', data: { user: buyer.user.id, template: template.id } })

    for (const status of ['failed', 'failed', 'processed', 'received'] as const) {
      await payload().create({
        collection: 'processor_events',
        data: {
          eventId: `evt_dash_${crypto.randomBytes(5).toString('hex')}`,
          type: 'invoice.payment_succeeded',
          status,
          attempts: 2,
          lastError: 'boom',
          receivedAt: NOW.toISOString(),
          payload: {},
        },
      })
    }

    const at = new Date()
    const after = await staffDashboardData(payload(), at)
    expect(delta(before, after)).toEqual({
      sales: {
        usd: { payments: 2, gross: 44800, refunded: 10000, net: 34800 },
        jpy: { payments: 1, gross: 5000, refunded: 0, net: 5000 },
        eur: { payments: 1, gross: 12000, refunded: 0, net: 12000 },
      },
      licenses: { free: 0, standard: 2, ultimate: 0, pro: 1 },
      total: 3,
      releases: 2,
      templates: 1,
      failed: 2,
    })
    expect(after.failedEvents.latest.slice(0, 2).map((event) => event.eventId)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^evt_dash_/), expect.stringMatching(/^evt_dash_/)]),
    )
    expect(after.failedEvents.latest[0]).toMatchObject({
      type: 'invoice.payment_succeeded',
      attempts: 2,
      lastError: 'boom',
    })
    expect(after.sales.since).toBe(new Date(at.getTime() - 30 * DAY).toISOString())
    expect(after.downloads.since).toBe(startOfWeek(at).toISOString())
  })

  it('the panel: numbers formatted with Intl, failed events linking to their retry; nothing for non-staff', async () => {
    const html = renderToStaticMarkup(await StaffDashboard({ payload: payload(), user: support.user }))
    const data = await staffDashboardData(payload())
    expect(html).toContain('Sales, last 30 days')
    for (const row of data.sales.byCurrency)
      expect(html).toContain(
        `<td>${row.currency.toUpperCase()}</td><td>${row.payments}</td><td title="Gross ${formatMinorAmount(row.gross, row.currency)}, refunded ${formatMinorAmount(row.refunded, row.currency)}">${formatMinorAmount(row.net, row.currency)}</td>`,
      )
    expect(html).toContain('<td>JPY</td><td>1</td><td title="Gross ¥5,000, refunded ¥0">¥5,000</td>')
    // Below the cards, the insights of the default range (tests/int/staff-insights-ui.test.ts covers them).
    expect(html).toContain('<a aria-current="page" href="/admin?insights=30">30 days</a>')
    expect(html).toContain(
      `<p class="staff-dashboard__big">${new Intl.NumberFormat('en-US').format(data.licenses.total)}</p>`,
    )
    const failed = await rows(payload(), 'processor_events', { status: { equals: 'failed' } })
    for (const event of failed) expect(html).toContain(`href="/admin/collections/processor_events/${event.id}"`)
    expect(await StaffDashboard({ payload: payload(), user: customer.user })).toBeNull()
    expect(await StaffDashboard({ payload: payload(), user: null })).toBeNull()
  })

  it('formats minor units per currency, and the week starts on Monday (UTC)', () => {
    expect(formatMinorAmount(123456, 'usd')).toBe('$1,234.56')
    expect(formatMinorAmount(5000, 'jpy')).toBe('¥5,000')
    expect(formatMinorAmount(-250, 'eur')).toBe('-€2.50')
    expect(formatMinorAmount(1234, 'xx1')).toBe('1,234 xx1')
    expect(startOfWeek(new Date('2026-11-25T10:00:00Z')).toISOString()).toBe('2026-11-23T00:00:00.000Z')
    expect(startOfWeek(new Date('2026-11-29T23:59:00Z')).toISOString()).toBe('2026-11-23T00:00:00.000Z')
    expect(startOfWeek(new Date('2026-11-23T00:00:00Z')).toISOString()).toBe('2026-11-23T00:00:00.000Z')
  })
})

describe('support changes none of plans, content, roles or settings', () => {
  const png = () =>
    sharp({ create: { width: 8, height: 8, channels: 3, background: '#777777' } })
      .png()
      .toBuffer()
  const gzip = () => zlib.gzipSync(crypto.randomBytes(128))
  const unique = () => crypto.randomBytes(4).toString('hex')

  /** One row of each collection to update and one to delete, created by the service. */
  const fixtures = () => {
    const plan = () =>
      payload().create({
        collection: 'plans',
        data: {
          slug: `p${unique()}`,
          name: 'Temp',
          isFree: true,
          monthlyPrice: 0,
          featureAccess: ['basic'],
          buttonText: 'Go',
          order: 99,
        },
      })
    const post = () =>
      payload().create({
        collection: 'posts',
        data: { title: 'T', slug: `t-${unique()}`, summary: 'S', author: 'Staff' },
      })
    const entry = () =>
      payload().create({
        collection: 'changelog_entries',
        data: { title: 'C', slug: `c-${unique()}`, version: `8.${crypto.randomInt(100000)}.0`, summary: 'S' },
      })
    const media = async () => {
      const bytes = await png()
      return payload().create({
        collection: 'media',
        data: { alt: 'A' },
        file: { data: bytes, mimetype: 'image/png', name: `m-${unique()}.png`, size: bytes.length },
      })
    }
    const template = () => {
      const bytes = gzip()
      return payload().create({
        collection: 'templates',
        data: { name: 'T', slug: `tpl-${unique()}`, category: 'auth' },
        file: { data: bytes, mimetype: 'application/gzip', name: `t-${unique()}.tar.gz`, size: bytes.length },
      })
    }
    const make = { plans: plan, posts: post, changelog_entries: entry, media, templates: template } as const
    return make
  }

  const multipart = async (slug: 'media' | 'templates', data: Record<string, string>) => {
    const form = new FormData()
    const file =
      slug === 'media'
        ? new Blob([new Uint8Array(await png())], { type: 'image/png' })
        : new Blob([new Uint8Array(gzip())], { type: 'application/gzip' })
    form.append('file', file, slug === 'media' ? `up-${unique()}.png` : `up-${unique()}.tar.gz`)
    form.append('_payload', JSON.stringify(data))
    return form
  }

  /** REST create through multipart for uploads, JSON otherwise. */
  const restCreate = async (slug: string, who: TestUser) => {
    const bodies: Record<string, Record<string, unknown>> = {
      plans: {
        slug: `p${unique()}`,
        name: 'New',
        isFree: true,
        monthlyPrice: 0,
        featureAccess: ['basic'],
        buttonText: 'Go',
      },
      posts: { title: 'New', slug: `n-${unique()}`, summary: 'S', author: 'Staff' },
      changelog_entries: { title: 'New', version: `7.${crypto.randomInt(100000)}.0`, summary: 'S' },
      media: { alt: 'New' },
      templates: { name: 'New', slug: `nt-${unique()}`, category: 'auth' },
    }
    if (slug === 'media' || slug === 'templates') {
      const { SERVER_URL } = await import('../support/payload')
      const { handleEndpoints } = await import('payload')
      const { default: config } = await import('../../payload.config')
      const request = new Request(`${SERVER_URL}/api/${slug}`, {
        method: 'POST',
        headers: { authorization: `JWT ${who.token}` },
        body: await multipart(slug, bodies[slug] as Record<string, string>),
      })
      const response = await handleEndpoints({ config, request })
      return { status: response.status, body: (await response.json()) as Answer }
    }
    return api<Answer>('POST', `/${slug}`, { as: who, body: bodies[slug] })
  }

  const UPDATES: Record<string, Record<string, unknown>> = {
    plans: { description: 'changed' },
    posts: { summary: 'changed' },
    changelog_entries: { summary: 'changed' },
    media: { alt: 'changed' },
    templates: { description: 'changed' },
  }

  it.each(['plans', 'posts', 'changelog_entries', 'media', 'templates'] as const)(
    '%s over REST: support 403 on create, update and delete; admins may',
    async (slug) => {
      const make = fixtures()
      const target = await make[slug]()
      const doomed = await make[slug]()

      const created = await restCreate(slug, support)
      expect(created.status, 'create').toBe(403)
      const updated = await api<Answer>('PATCH', `/${slug}/${target.id}`, { as: support, body: UPDATES[slug] })
      expect(updated.status, 'update').toBe(403)
      const deleted = await api<Answer>('DELETE', `/${slug}/${doomed.id}`, { as: support })
      expect(deleted.status, 'delete').toBe(403)
      const kept = (await payload().findByID({
        collection: slug,
        id: target.id,
        depth: 0,
        draft: true,
      })) as unknown as Record<string, unknown>
      expect(kept[Object.keys(UPDATES[slug]!)[0]!]).not.toBe('changed')
      expect(
        await payload().findByID({ collection: slug, id: doomed.id, depth: 0, disableErrors: true }),
      ).not.toBeNull()

      expect((await restCreate(slug, admin)).status, 'admin create').toBe(201)
      expect(
        (await api('PATCH', `/${slug}/${target.id}`, { as: admin, body: UPDATES[slug] })).status,
        'admin update',
      ).toBe(200)
      expect((await api('DELETE', `/${slug}/${doomed.id}`, { as: admin })).status, 'admin delete').toBe(200)
    },
  )

  const MUTATIONS = {
    plans: {
      name: 'Plan',
      create: `createPlan(data: { slug: "g${unique()}", name: "G", isFree: true, monthlyPrice: 0, featureAccess: [basic], buttonText: "Go", order: 99 })`,
      update: 'description: "changed"',
    },
    posts: {
      name: 'Post',
      create: `createPost(data: { title: "G", slug: "g-${unique()}", summary: "S", author: "A" })`,
      update: 'summary: "changed"',
    },
    // GraphQL names changelog entries after their label, "Changelog entry".
    changelog_entries: {
      name: 'Changelog_entry',
      create: `createChangelog_entry(data: { title: "G", slug: "g-${unique()}", version: "6.${crypto.randomInt(100000)}.0", summary: "S" })`,
      update: 'summary: "changed"',
    },
    media: { name: 'Media', create: null, update: 'alt: "changed"' },
    templates: { name: 'Template', create: null, update: 'description: "changed"' },
  } as const

  it.each(Object.keys(MUTATIONS) as (keyof typeof MUTATIONS)[])(
    '%s over GraphQL: support is refused create, update and delete; admins may',
    async (slug) => {
      const make = fixtures()
      const target = await make[slug]()
      const doomed = await make[slug]()
      const { name, create, update } = MUTATIONS[slug]
      const mutations = [
        ...(create ? [`mutation { ${create} { id } }`] : []),
        `mutation { update${name}(id: ${target.id}, data: { ${update} }) { id } }`,
        `mutation { delete${name}(id: ${doomed.id}) { id } }`,
      ]
      for (const mutation of mutations) {
        const answer = await graphql(mutation, support)
        expect(answer.errors?.[0]?.message, mutation).toBe('You are not allowed to perform this action.')
      }
      for (const mutation of mutations) {
        const answer = await graphql(mutation, admin)
        expect(answer.errors, mutation).toBeUndefined()
      }
    },
  )

  it("users' roles: support cannot change anyone's (403 on another user; silently kept on their own); admins can, over REST and GraphQL", async () => {
    const target = await createUser(payload(), 'customer')
    const rest = await api<Answer>('PATCH', `/users/${target.user.id}`, { as: support, body: { roles: ['admin'] } })
    expect(rest.status).toBe(403)
    const gql = await graphql(
      `mutation { updateUser(id: ${target.user.id}, data: { roles: [admin] }) { id } }`,
      support,
    )
    expect(gql.errors?.[0]?.message).toBe('You are not allowed to perform this action.')
    await api('PATCH', `/users/${support.user.id}`, { as: support, body: { roles: ['admin'] } })
    await graphql(`mutation { updateUser(id: ${support.user.id}, data: { roles: [admin] }) { id } }`, support)
    const rolesOf = async (user: TestUser) =>
      (await payload().findByID({ collection: 'users', id: user.user.id, depth: 0 })).roles
    expect(await rolesOf(target)).toEqual(['customer'])
    expect(await rolesOf(support)).toEqual(['support'])

    expect((await api('PATCH', `/users/${target.user.id}`, { as: admin, body: { roles: ['support'] } })).status).toBe(
      200,
    )
    expect(await rolesOf(target)).toEqual(['support'])
    expect(
      (await graphql(`mutation { updateUser(id: ${target.user.id}, data: { roles: [customer] }) { id } }`, admin))
        .errors,
    ).toBeUndefined()
    expect(await rolesOf(target)).toEqual(['customer'])
  })

  it('settings (the schedules global, the only global): support is refused reading and writing; admins may', async () => {
    await payload().jobs.handleSchedules()
    expect((await api('GET', '/globals/payload-jobs-stats', { as: support })).status).toBe(403)
    expect((await api('POST', '/globals/payload-jobs-stats', { as: support, body: { stats: {} } })).status).toBe(403)
    expect((await api('GET', '/globals/payload-jobs-stats', { as: admin })).status).toBe(200)
  })
})

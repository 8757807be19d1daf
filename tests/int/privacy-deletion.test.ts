import './../support/billing-env'
import { receiver } from '../support/webhooks-env'

import { beforeAll, describe, expect, it } from 'vitest'

import { issueSession } from '../../src/auth/issue-session'
import { billingRuntimeOf } from '../../src/billing/runtime'
import { RANDOM_PASSWORD } from '../../src/auth/password-hash'
import { runtimeOf } from '../../src/config/runtime'
import { accountLockKey, executeOn, sql } from '../../src/db/transaction'
import type { License, User } from '../../src/payload-types'
import { cancelAccountDeletionWithToken } from '../../src/privacy/deletion'
import { eraseAccount, eraseDueAccounts, erasedEmail } from '../../src/privacy/erasure'
import { loadInsights, rangeEndingToday } from '../../src/staff/insights'
import '../../src/privacy/runtime'
import { codeHost, PRICES, smtp, standIn } from '../support/billing-env'
import { buy, paidStandardCheckout, rows, seedStandInPlans } from '../support/billing'
import { api, createUser, type TestUser, usePayload } from '../support/payload'
import { createRelease } from '../support/releases'

/**
 * Deleting an account (docs/PRIVACY.md): who may ask and how they prove it, the grace period and its
 * cancel link, the admin's request, and the erasure: the person gone everywhere, every access revoked,
 * the processor's customer deleted, the books kept; resumable after a crash or an unreachable processor.
 */
const payload = usePayload()
const processor = () => billingRuntimeOf(payload()).require().processor
const DAY_MS = 24 * 60 * 60 * 1000
/** Far enough ahead that any deletion asked for in this file is due. */
const LATER = () => new Date(Date.now() + 60 * DAY_MS)

const deps = () => runtimeOf(payload(), 'privacy').erasure
const ask = (who: TestUser | { token: string } | null, body: unknown = {}, headers: Record<string, string> = {}) =>
  api<{ scheduledFor: string; errors: { code: string }[] }>('POST', '/account/deletion', { as: who, body, headers })
const userRow = (id: number) =>
  payload().findByID({ collection: 'users', id, depth: 0, overrideAccess: true, showHiddenFields: true })
/** The email to `email` whose subject matches, once the jobs queue has sent it. */
const mailTo = async (email: string, subject: RegExp) => {
  await payload().jobs.run({ limit: 100 })
  return smtp.waitFor((message) => JSON.stringify(message.to).includes(email) && subject.test(message.subject ?? ''))
}
const linkIn = (text: string) => /https?:\/\/\S+\/account\/keep\?token=([A-Za-z0-9_-]+)/.exec(text)?.[1] ?? ''
const sqlRows = <Row = Record<string, unknown>>(query: ReturnType<typeof sql>) =>
  executeOn<Row>(payload(), undefined, query)

/** An account made by a sign-in link: no password of its own, signed in now. */
const passwordlessUser = async () => {
  const email = `nopass-${Math.random().toString(36).slice(2, 9)}@example.test`
  const user = await payload().create({
    collection: 'users',
    data: { email, password: 'random-unknown-password-1234', emailVerified: true, roles: ['customer'] },
    overrideAccess: true,
    context: { [RANDOM_PASSWORD]: true },
  })
  const { token } = await issueSession(payload(), user.id)
  return { user, token, email }
}

beforeAll(async () => {
  await seedStandInPlans(payload())
  codeHost.addUser('erased-dev')
}, 60_000)

describe('asking for a deletion', () => {
  it('401 anonymous; 403 api_key_not_allowed for an API key; 409 staff_account for staff', async () => {
    expect((await ask(null)).status).toBe(401)
    const buyer = await createUser(payload(), 'customer')
    await buy(PRICES.ultimate, { as: buyer })
    const key = (await api<{ key: string }>('POST', '/account/api-keys', { as: buyer, body: { name: 'ci' } })).body.key
    const byKey = await ask(null, { password: buyer.password }, { authorization: `Bearer ${key}` })
    expect(byKey.status).toBe(403)
    expect(byKey.body.errors[0]!.code).toBe('api_key_not_allowed')
    const support = await createUser(payload(), 'support')
    const staff = await ask(support, { password: support.password })
    expect(staff.status).toBe(409)
    expect(staff.body.errors[0]!.code).toBe('staff_account')
    expect((await userRow(buyer.user.id)).deletion?.scheduledFor ?? null).toBeNull()
  })

  it('a password account proves its password: missing or wrong is 403 reauthentication_required and changes nothing', async () => {
    const customer = await createUser(payload(), 'customer')
    expect((await userRow(customer.user.id)).passwordSet).toBe(true)
    for (const body of [{}, { password: 'not-the-password' }]) {
      const refused = await ask(customer, body)
      expect(refused.status).toBe(403)
      expect(refused.body.errors[0]!.code).toBe('reauthentication_required')
    }
    expect((await userRow(customer.user.id)).deletion?.scheduledFor ?? null).toBeNull()
  })

  it('an account without a password needs a session from the last 10 minutes (a stolen older one is refused)', async () => {
    const fresh = await passwordlessUser()
    expect((await userRow(fresh.user.id)).passwordSet).toBe(false)
    await sqlRows(
      sql`UPDATE users_sessions SET created_at = now() - interval '20 minutes' WHERE _parent_id = ${fresh.user.id}`,
    )
    const old = await ask(fresh)
    expect(old.status).toBe(403)
    expect(old.body.errors[0]!.code).toBe('reauthentication_required')
    const again = await issueSession(payload(), fresh.user.id)
    const accepted = await ask(again)
    expect(accepted.status).toBe(202)
  })

  it('202 {scheduledFor} after the grace period, one email with a cancel link; asking again sends nothing new', async () => {
    const customer = await createUser(payload(), 'customer')
    const before = Date.now()
    const first = await ask(customer, { password: customer.password })
    expect(first.status).toBe(202)
    const scheduled = new Date(first.body.scheduledFor).getTime()
    expect(scheduled).toBeGreaterThanOrEqual(before + 14 * DAY_MS)
    expect(scheduled).toBeLessThan(Date.now() + 14 * DAY_MS + 1_000)
    const mail = await mailTo(customer.email, /will be deleted/)
    expect(linkIn(mail.text ?? '')).not.toBe('')
    const second = await ask(customer, { password: customer.password })
    expect(second.status).toBe(202)
    expect(second.body.scheduledFor).toBe(first.body.scheduledFor)
    await payload().jobs.run({ limit: 100 })
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(smtp.messages.filter((message) => JSON.stringify(message.to).includes(customer.email))).toHaveLength(1)
  })

  it('409 active_subscription while a subscription renews; set to cancel, the date is the end of its paid period', async () => {
    const subscriber = await createUser(payload(), 'customer')
    const { events } = await buy(PRICES.proMonthly, { as: subscriber })
    await standIn.settled()
    const refused = await ask(subscriber, { password: subscriber.password })
    expect(refused.status).toBe(409)
    expect(refused.body.errors[0]!.code).toBe('active_subscription')
    const created = events.find((event) => event.type === 'customer.subscription.created')!
    const subscriptionId = created.data.object.id
    await processor().subscriptions.update(subscriptionId, { cancel_at_period_end: true })
    await standIn.settled()
    const [subscription] = await rows(payload(), 'user_subscriptions', { user: { equals: subscriber.user.id } })
    expect(subscription!.cancelAtPeriodEnd).toBe(true)
    const accepted = await ask(subscriber, { password: subscriber.password })
    expect(accepted.status).toBe(202)
    expect(accepted.body.scheduledFor).toBe(new Date(subscription!.currentPeriodEnd!).toISOString())
  })
})

describe('cancelling', () => {
  it('DELETE cancels (204), then 404 no_pending_deletion; the old email link stops working', async () => {
    const customer = await createUser(payload(), 'customer')
    await ask(customer, { password: customer.password })
    const token = linkIn((await mailTo(customer.email, /will be deleted/)).text ?? '')
    expect((await api('DELETE', '/account/deletion', { as: customer })).status).toBe(204)
    expect((await userRow(customer.user.id)).deletion?.scheduledFor ?? null).toBeNull()
    const again = await api<{ errors: { code: string }[] }>('DELETE', '/account/deletion', { as: customer })
    expect(again.status).toBe(404)
    expect(again.body.errors[0]!.code).toBe('no_pending_deletion')
    await expect(cancelAccountDeletionWithToken(payload(), token)).rejects.toMatchObject({ code: 'invalid_link' })
  })

  it("the email's link cancels once, without signing in; forged, replayed and another purpose's tokens do nothing", async () => {
    const customer = await createUser(payload(), 'customer')
    await ask(customer, { password: customer.password })
    const token = linkIn((await mailTo(customer.email, /will be deleted/)).text ?? '')
    await expect(cancelAccountDeletionWithToken(payload(), 'x'.repeat(43))).rejects.toMatchObject({
      code: 'invalid_link',
    })
    await expect(cancelAccountDeletionWithToken(payload(), 42)).rejects.toMatchObject({ code: 'invalid_link' })
    expect((await userRow(customer.user.id)).deletion?.scheduledFor).toBeTruthy()
    await cancelAccountDeletionWithToken(payload(), token)
    expect((await userRow(customer.user.id)).deletion?.scheduledFor ?? null).toBeNull()
    await expect(cancelAccountDeletionWithToken(payload(), token)).rejects.toMatchObject({ code: 'invalid_link' })
  })
})

describe('an admin asks for a customer', () => {
  it('admins only, with a reason, audited; the customer is emailed and the same refusals hold', async () => {
    const [admin, support, customer] = await Promise.all([
      createUser(payload(), 'admin'),
      createUser(payload(), 'support'),
      createUser(payload(), 'customer'),
    ])
    const path = `/staff/users/${customer.user.id}/deletion`
    expect((await api('POST', path, { as: support, body: { reason: 'asked by email' } })).status).toBe(403)
    expect((await api('POST', path, { as: admin, body: {} })).status).toBe(400)
    expect((await api('POST', `/staff/users/999999/deletion`, { as: admin, body: { reason: 'x' } })).status).toBe(404)
    const onStaff = await api<{ errors: { code: string }[] }>('POST', `/staff/users/${support.user.id}/deletion`, {
      as: admin,
      body: { reason: 'leaving' },
    })
    expect(onStaff.body.errors[0]!.code).toBe('staff_account')
    const done = await api<{ scheduledFor: string; auditLogId: number }>('POST', path, {
      as: admin,
      body: { reason: 'customer asked by email, ticket 88' },
    })
    expect(done.status).toBe(200)
    const audit = await payload().findByID({ collection: 'audit_log', id: done.body.auditLogId, overrideAccess: true })
    expect(audit).toMatchObject({ action: 'user.schedule_deletion', targetId: String(customer.user.id) })
    expect((await userRow(customer.user.id)).deletion).toMatchObject({ requestedBy: 'staff' })
    await mailTo(customer.email, /will be deleted/)
    const twice = await api<{ errors: { code: string }[] }>('POST', path, { as: admin, body: { reason: 'again' } })
    expect(twice.body.errors[0]!.code).toBe('deletion_pending')
  })
})

describe('the erasure', () => {
  let eve: TestUser
  let bob: TestUser
  let eveLicense: License
  let apiKey = ''
  let customerId = ''
  let paidBefore = 0
  /** The insights' revenue of the last week, net, per currency: what a seller's chart adds up. */
  const revenue = async () => {
    const { revenue: rows } = await loadInsights(payload(), rangeEndingToday(7))
    return rows.reduce<Record<string, number>>(
      (sums, row) => ({ ...sums, [row.currency]: (sums[row.currency] ?? 0) + row.net }),
      {},
    )
  }
  let revenueBefore: Record<string, number> = {}

  beforeAll(async () => {
    ;[eve, bob] = await Promise.all([
      createUser(payload(), 'customer', { name: 'Evelyn Erasable' }),
      createUser(payload(), 'customer'),
    ])
    await buy(PRICES.ultimate, { as: eve })
    await buy(PRICES.ultimate, { as: bob })
    await standIn.settled()
    eveLicense = (await rows(payload(), 'licenses', { user: { equals: eve.user.id } }))[0]!
    const bobLicense = (await rows(payload(), 'licenses', { user: { equals: bob.user.id } }))[0]!
    // The processor customer checkout made for her, remembered on the account.
    const customer = await processor().customers.create({ email: eve.email, name: 'Evelyn Erasable' })
    customerId = customer.id
    await payload().update({
      collection: 'users',
      id: eve.user.id,
      data: { processorCustomerId: customerId },
      overrideAccess: true,
    })
    await api('POST', '/licenses/activate', {
      body: { key: eveLicense.key, fingerprint: 'eve-laptop', label: 'Laptop' },
    })
    // A seat she gave Bob, and one she holds on Bob's license.
    for (const [license, member, email] of [
      [eveLicense.id, bob.user.id, bob.email],
      [bobLicense.id, eve.user.id, eve.email],
    ] as const) {
      await payload().create({
        collection: 'license_seats',
        data: { license, email, status: 'claimed', member, claimedAt: new Date().toISOString() },
        overrideAccess: true,
      })
    }
    const request = await payload().create({
      collection: 'support_requests',
      data: {
        subject: 'My address changed',
        message: 'I live at 1 Private Road now',
        user: eve.user.id,
        priority: 'normal',
        status: 'open',
      },
      overrideAccess: true,
    })
    await payload().create({
      collection: 'support_replies',
      data: { request: request.id, body: 'Thanks Evelyn Erasable, noted.', fromStaff: true },
      overrideAccess: true,
    })
    apiKey = (await api<{ key: string }>('POST', '/account/api-keys', { as: eve, body: { name: 'ci' } })).body.key
    await payload().create({
      collection: 'oauth_identities',
      data: { provider: 'github', subject: '777', email: eve.email, user: eve.user.id },
      overrideAccess: true,
    })
    const { release } = await createRelease(payload(), '1.0.0', new Date(Date.now() - 60_000))
    await payload().create({
      collection: 'downloads',
      data: {
        release: release.id,
        user: eve.user.id,
        license: eveLicense.id,
        version: '1.0.0',
        clientAddress: '203.0.113.7',
        userAgent: 'curl/8',
      },
      overrideAccess: true,
    })
    expect((await api('POST', '/repo-access', { as: eve, body: { username: 'erased-dev' } })).status).toBe(200)
    codeHost.accept('erased-dev')
    expect(codeHost.state.collaborators.has('erased-dev')).toBe(true)
    // A staff note naming her, and a receiver for customer.deleted.
    const admin = await createUser(payload(), 'admin')
    await api('POST', `/staff/licenses/${eveLicense.id}/resend-email`, {
      as: admin,
      body: { reason: `Evelyn Erasable (${eve.email}) lost the email` },
    })
    await payload().create({
      collection: 'webhook_endpoints',
      data: {
        url: `${receiver.url}/privacy`,
        events: ['customer.deleted', 'license.revoked'],
        enabled: true,
      },
      overrideAccess: true,
    })
    paidBefore = (await rows(payload(), 'payment_history', { user: { equals: eve.user.id } })).reduce(
      (sum, payment) => sum + (payment.amount ?? 0),
      0,
    )
    expect(paidBefore).toBeGreaterThan(0)
    revenueBefore = await revenue()
    expect((await ask(eve, { password: eve.password })).status).toBe(202)
  }, 120_000)

  it('waits for the grace period: nothing is erased before its time', async () => {
    expect(await eraseAccount(payload(), eve.user.id, deps())).toBe('not_due')
    expect((await userRow(eve.user.id)).email).toBe(eve.email)
  })

  it('a crash half way through the first step leaves everything as it was (one transaction)', async () => {
    // The account row's own UPDATE, the step's last statement, fails as a killed process would stop it.
    await sqlRows(sql`CREATE OR REPLACE FUNCTION kit_test_refuse_erasure() RETURNS trigger AS $$
      BEGIN IF NEW.email LIKE 'deleted-%' THEN RAISE EXCEPTION 'killed half way'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql`)
    await sqlRows(
      sql`CREATE TRIGGER kit_test_refuse_erasure BEFORE UPDATE ON users FOR EACH ROW EXECUTE FUNCTION kit_test_refuse_erasure()`,
    )
    try {
      const crash = await eraseAccount(payload(), eve.user.id, deps(), LATER()).catch((error: unknown) => error)
      expect(String((crash as { cause?: Error }).cause?.message)).toMatch(/killed half way/)
    } finally {
      await sqlRows(sql`DROP TRIGGER kit_test_refuse_erasure ON users`)
    }
    expect((await userRow(eve.user.id)).email).toBe(eve.email)
    expect((await rows(payload(), 'licenses', { user: { equals: eve.user.id } }))[0]!.status).toBe('active')
    expect(await rows(payload(), 'api_keys', { user: { equals: eve.user.id } })).toHaveLength(1)
    expect(await rows(payload(), 'license_activations', { license: { equals: eveLicense.id } })).toHaveLength(1)
  })

  it('the processor unreachable: the person is erased, the erasure waits (not complete, no event), then finishes', async () => {
    standIn.failNext({ method: 'DELETE', path: /^\/v1\/customers\//, status: 500, count: 100 })
    try {
      const run = await eraseDueAccounts(payload(), deps(), LATER())
      expect(run.waiting).toBeGreaterThanOrEqual(1)
    } finally {
      standIn.clearFailures()
    }
    const waiting = await userRow(eve.user.id)
    expect(waiting.email).toBe(erasedEmail(eve.user.id))
    expect(waiting.deletion?.erasedAt).toBeTruthy()
    expect(waiting.deletion?.completedAt ?? null).toBeNull()
    expect(waiting.deletion?.lastError).toBeTruthy()
    const hersDeleted = () =>
      rows(payload(), 'webhook_events', { sourceKey: { equals: `customer.deleted:${eve.user.id}` } })
    expect(await hersDeleted()).toHaveLength(0)
    expect((await processor().customers.retrieve(customerId)).deleted).toBeUndefined()

    expect(await eraseAccount(payload(), eve.user.id, deps(), LATER())).toBe('complete')
    const done = await userRow(eve.user.id)
    expect(done.deletion?.completedAt).toBeTruthy()
    expect(done.deletion?.lastError ?? null).toBeNull()
    // Run again: nothing more happens, one event.
    expect(await eraseAccount(payload(), eve.user.id, deps(), LATER())).toBe('complete')
    const events = await hersDeleted()
    expect(events).toHaveLength(1)
    expect(JSON.parse(events[0]!.body)).toMatchObject({
      type: 'customer.deleted',
      data: { customer: { id: eve.user.id } },
    })
    expect(events[0]!.body).not.toContain(eve.email)
  })

  it('the person is gone: identity, sign-ins, keys, tokens, installations, messages, addresses', async () => {
    const user = (await userRow(eve.user.id)) as User & { sessions?: unknown[] }
    expect(user).toMatchObject({
      email: erasedEmail(eve.user.id),
      name: null,
      emailVerified: false,
      passwordSet: false,
    })
    expect(user.sessions ?? []).toHaveLength(0)
    for (const collection of ['oauth_identities', 'api_keys', 'repo_access'] as const)
      expect(await rows(payload(), collection, { user: { equals: eve.user.id } }), collection).toHaveLength(0)
    expect(await rows(payload(), 'auth_tokens', { email: { equals: eve.email } })).toHaveLength(0)
    expect(await rows(payload(), 'license_activations', { license: { equals: eveLicense.id } })).toHaveLength(0)
    const [request] = await rows(payload(), 'support_requests', { user: { equals: eve.user.id } })
    expect(request).toMatchObject({ subject: '(erased)', message: '(erased)' })
    const replies = await rows(payload(), 'support_replies', { request: { equals: request!.id } })
    expect(replies.map((reply) => reply.body)).toEqual(['(erased)'])
    const [download] = await rows(payload(), 'downloads', { user: { equals: eve.user.id } })
    expect(download).toMatchObject({ clientAddress: null, userAgent: null })
    const like = `%${eve.email}%`
    const [left] = await sqlRows<Record<string, string>>(sql`
      SELECT (SELECT count(*) FROM audit_log WHERE concat(reason, before::text, after::text) ILIKE ${like}
                OR concat(reason, before::text, after::text) ILIKE '%Evelyn Erasable%') AS audit_log,
             (SELECT count(*) FROM analytics_events WHERE email = ${eve.email}) AS analytics_events,
             (SELECT count(*) FROM processor_events WHERE payload::text ILIKE ${like}) AS processor_events,
             (SELECT count(*) FROM licenses WHERE email = ${eve.email}) AS licenses,
             (SELECT count(*) FROM one_time_purchases WHERE email = ${eve.email}) AS one_time_purchases,
             (SELECT count(*) FROM payment_history WHERE email = ${eve.email}) AS payment_history,
             (SELECT count(*) FROM user_subscriptions WHERE email = ${eve.email}) AS user_subscriptions`)
    expect(Object.fromEntries(Object.entries(left!).map(([table, count]) => [table, Number(count)]))).toEqual({
      audit_log: 0,
      analytics_events: 0,
      processor_events: 0,
      licenses: 0,
      one_time_purchases: 0,
      payment_history: 0,
      user_subscriptions: 0,
    })
    const erasedRow = await rows(payload(), 'audit_log', { action: { equals: 'user.erased' } })
    expect(erasedRow.map((row) => row.targetId)).toContain(String(eve.user.id))
  })

  it('every access is revoked: licenses (account_deleted), seats, repository, the processor customer', async () => {
    const licenses = await rows(payload(), 'licenses', { user: { equals: eve.user.id } })
    expect(licenses.map((license) => [license.status, license.revokedReason])).toEqual([['revoked', 'account_deleted']])
    const seats = await rows(payload(), 'license_seats', {
      or: [{ member: { equals: eve.user.id } }, { license: { equals: eveLicense.id } }],
    })
    expect(seats.map((seat) => seat.status)).toEqual(['revoked', 'revoked'])
    expect(seats.find((seat) => seat.member === eve.user.id)?.email).toBe(erasedEmail(eve.user.id))
    expect(codeHost.state.collaborators.has('erased-dev')).toBe(false)
    expect((await processor().customers.retrieve(customerId)).deleted).toBe(true)
  })

  it('signs in nowhere: the old password, the old session, the API key', async () => {
    const login = await api('POST', '/users/login', { body: { email: eve.email, password: eve.password } })
    expect(login.status).toBe(401)
    const me = await api<{ user: unknown }>('GET', '/users/me', { as: eve })
    expect(me.body.user).toBeNull()
    const byKey = await api('GET', '/licenses', { headers: { authorization: `Bearer ${apiKey}` } })
    expect(byKey.status).toBe(401)
  })

  it('keeps the books: payments and purchases stay on the erased account, and the insights add up as before', async () => {
    const payments = await rows(payload(), 'payment_history', { user: { equals: eve.user.id } })
    expect(payments.reduce((sum, payment) => sum + (payment.amount ?? 0), 0)).toBe(paidBefore)
    expect(payments.every((payment) => payment.email === null)).toBe(true)
    expect(await rows(payload(), 'one_time_purchases', { user: { equals: eve.user.id } })).toHaveLength(1)
    expect(await revenue()).toEqual(revenueBefore)
  })

  it('a new sign-up with the erased address inherits nothing, and a late checkout of the erased account stays anonymous', async () => {
    const again = await createUser(payload(), 'customer', { email: eve.email })
    expect(await rows(payload(), 'licenses', { user: { equals: again.user.id } })).toHaveLength(0)
    expect(await rows(payload(), 'one_time_purchases', { user: { equals: again.user.id } })).toHaveLength(0)
    // A checkout opened before the erasure, paid after: the erased account gets nothing.
    const sessionId = await paidStandardCheckout(processor(), 'late-payer@example.test', eve.user.id)
    const [late] = await rows(payload(), 'one_time_purchases', { processorCheckoutSessionId: { equals: sessionId } })
    expect(late).toMatchObject({ user: null, email: 'late-payer@example.test' })
    expect(
      (await rows(payload(), 'licenses', { user: { equals: eve.user.id } })).every(
        (license) => license.status === 'revoked',
      ),
    ).toBe(true)
  })
})

describe('a purchase in flight during the erasure', () => {
  it('the erasure waits for it (the account lock) and revokes the license it gave', async () => {
    const buyer = await createUser(payload(), 'customer')
    expect((await ask(buyer, { password: buyer.password })).status).toBe(202)
    const plan = (await rows(payload(), 'plans', { slug: { equals: 'standard' } }))[0]!
    // A webhook's transaction holds the account's lock shared while it gives a license.
    const client = await payload().db.pool.connect()
    let erasure: Promise<unknown> | undefined
    try {
      await client.query('BEGIN')
      await client.query('SELECT pg_advisory_xact_lock_shared(hashtext($1))', [accountLockKey(buyer.user.id)])
      erasure = eraseAccount(payload(), buyer.user.id, deps(), LATER())
      // The erasure is waiting for exactly that lock before it reads anything.
      for (let tries = 0; ; tries += 1) {
        const waiting = await client.query(
          `SELECT 1 FROM pg_locks
           WHERE locktype = 'advisory' AND NOT granted AND mode = 'ExclusiveLock'
             AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
        )
        if (waiting.rowCount) break
        if (tries > 200) throw new Error('the erasure never waited for the purchase in flight')
        await new Promise((resolve) => setTimeout(resolve, 25))
      }
      await client.query(
        `INSERT INTO licenses (key, user_id, plan_id, source, status, seats, granted_at, updated_at, created_at)
         VALUES ('KIT-INFLIGHT-0001', $1, $2, 'manual', 'active', 1, now(), now(), now())`,
        [buyer.user.id, plan.id],
      )
      await client.query('COMMIT')
    } finally {
      client.release()
    }
    expect(await erasure).toBe('complete')
    const licenses = await rows(payload(), 'licenses', { user: { equals: buyer.user.id } })
    expect(licenses.map((license) => license.status)).toEqual(['revoked'])
  })
})

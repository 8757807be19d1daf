import './../support/billing-env'

import { beforeAll, describe, expect, it } from 'vitest'

import { billingRuntimeOf } from '../../src/billing/runtime'
import type { License } from '../../src/payload-types'
import { handleSeatClaim, SEAT_COOKIE } from '../../src/teams/claim-link'
import { claimSeat } from '../../src/teams/seats'
import { codeHost, PRICES, smtp, standIn } from '../support/billing-env'
import { rows, seedStandInPlans } from '../support/billing'
import { api, createUser, graphql, type TestUser, usePayload } from '../support/payload'
import { createRelease } from '../support/releases'

/**
 * Team seats (docs/TEAMS.md) end to end: checkout with a quantity through the real endpoint and
 * the processor stand-in (real SDK, its webhooks into the service), the owner's seat endpoints, the
 * claim link, and what a member gets and loses.
 */
const payload = usePayload()

beforeAll(async () => {
  await seedStandInPlans(payload())
  await createRelease(payload(), '1.0.0', new Date(Date.now() - 60_000))
}, 120_000)

/** Buy `priceId` for `seats` people through POST /api/checkout_sessions and the stand-in's Pay button. */
const buyTeam = async (priceId: string, seats: number, as?: TestUser) => {
  const owner = as ?? (await createUser(payload(), 'customer'))
  const checkout = await api<{ url: string; id: string }>('POST', '/checkout_sessions', {
    as: owner,
    body: { priceId, quantity: seats },
  })
  expect(checkout.status).toBe(200)
  await standIn.pay(checkout.body.id, { email: owner.email })
  await standIn.settled()
  const [license] = await rows(payload(), 'licenses', { user: { equals: owner.user.id } })
  if (!license) throw new Error(`no license for ${owner.email}`)
  return { owner, license, sessionId: checkout.body.id }
}

/** The claim link the last invitation to `email` carried, from the mailbox (the job sends it). */
const claimTokenFor = async (email: string): Promise<string> => {
  // Every queued job (license emails of earlier purchases queue too), not just the first batch.
  await payload().jobs.run({ limit: 1000 })
  const message = await smtp.waitFor(
    (candidate) => JSON.stringify(candidate.to ?? '').includes(email) && /seat/.test(candidate.subject ?? ''),
  )
  const match = /type=seat&token=([A-Za-z0-9_-]+)/.exec(message.text ?? '')
  if (!match) throw new Error(`no claim link in the email to ${email}`)
  return match[1]!
}

const assign = (owner: TestUser, license: License, email: string) =>
  api('POST', `/licenses/${license.id}/seats`, { as: owner, body: { email } })

/** A member: a verified account with `email`, holding the claimed seat. */
const claimAs = async (email: string, token: string) => {
  const member = await createUser(payload(), 'customer', { email })
  const outcome = await claimSeat(payload(), token, member.user)
  return { member, outcome }
}

describe('checkout with a quantity', () => {
  it('records the seats on the purchase and the license; the processor charged for each seat', async () => {
    const { license, sessionId } = await buyTeam(PRICES.ultimate, 3)
    expect(license.seats).toBe(3)
    const [purchase] = await rows(payload(), 'one_time_purchases', {
      id: { equals: license.oneTimePurchase as number },
    })
    expect(purchase!.quantity).toBe(3)
    const session = await billingRuntimeOf(payload())
      .require()
      .processor.checkout.sessions.retrieve(sessionId, { expand: ['line_items'] })
    expect(session.line_items!.data[0]!.quantity).toBe(3)
    expect(purchase!.amount).toBe(session.line_items!.data[0]!.amount_total)
  })

  it('refuses a quantity outside 1..maxSeats with 400 invalid_quantity, and a non-number with invalid_request', async () => {
    const buyer = await createUser(payload(), 'customer')
    for (const quantity of [0, -1, 1.5, 11, 1e9]) {
      const response = await api('POST', '/checkout_sessions', {
        as: buyer,
        body: { priceId: PRICES.ultimate, quantity },
      })
      expect(response.status, String(quantity)).toBe(400)
      expect(response.body.errors[0]).toMatchObject({ code: 'invalid_quantity', maxSeats: 10 })
    }
    const pro = await api('POST', '/checkout_sessions', {
      as: buyer,
      body: { priceId: PRICES.proMonthly, quantity: 2 },
    })
    expect(pro.body.errors[0]).toMatchObject({ code: 'invalid_quantity', maxSeats: 1 })
    const text = await api('POST', '/checkout_sessions', {
      as: buyer,
      body: { priceId: PRICES.ultimate, quantity: '3' },
    })
    expect(text.status).toBe(400)
    expect(text.body.errors[0].code).toBe('invalid_request')
  })
})

describe("a team license's upgrade and renewal", () => {
  it("an upgrade moves every seat: the target's price per seat less what all of them paid", async () => {
    const { owner, license } = await buyTeam(PRICES.standard, 3)
    const quote = await api('GET', `/licenses/${license.id}/upgrade?plan=ultimate`, { as: owner })
    expect(quote.status).toBe(200)
    const [purchase] = await rows(payload(), 'one_time_purchases', {
      id: { equals: license.oneTimePurchase as number },
    })
    const ultimate = await billingRuntimeOf(payload()).require().processor.prices.retrieve(PRICES.ultimate)
    expect(quote.body).toMatchObject({
      seats: 3,
      price: ultimate.unit_amount! * 3,
      credit: purchase!.amount,
      amount: ultimate.unit_amount! * 3 - purchase!.amount!,
    })
    const started = await api('POST', `/licenses/${license.id}/upgrade`, { as: owner, body: { plan: 'ultimate' } })
    expect(started.status).toBe(200)
    const session = await billingRuntimeOf(payload())
      .require()
      .processor.checkout.sessions.retrieve(started.body.id, { expand: ['line_items'] })
    expect(session.line_items!.data[0]!.quantity).toBe(3)
    expect(session.amount_total).toBe(quote.body.amount)
    await standIn.pay(started.body.id, { email: owner.email })
    await standIn.settled()
    const [upgraded] = await rows(payload(), 'licenses', { id: { equals: license.id } })
    expect(upgraded).toMatchObject({ seats: 3, key: license.key })
    expect((await payload().findByID({ collection: 'plans', id: upgraded!.plan as number })).slug).toBe('ultimate')
  })
})

describe('the owner assigns, lists and revokes seats', () => {
  it('a seat is pending until claimed; the buyer holds the first; seats_exhausted past the count', async () => {
    const { owner, license } = await buyTeam(PRICES.ultimate, 3)
    const first = await assign(owner, license, ' Dev.One@Example.test ')
    expect(first.status).toBe(201)
    expect(first.body).toMatchObject({ email: 'dev.one@example.test', status: 'pending' })
    expect((await assign(owner, license, 'dev.one@example.test')).body.errors[0].code).toBe('seat_already_assigned')
    expect((await assign(owner, license, owner.email.toUpperCase())).body.errors[0].code).toBe('seat_already_assigned')
    expect((await assign(owner, license, 'dev.two@example.test')).status).toBe(201)
    const full = await assign(owner, license, 'dev.three@example.test')
    expect(full.status).toBe(409)
    expect(full.body.errors[0]).toMatchObject({ code: 'seats_exhausted', seats: 3, used: 3 })

    const list = await api('GET', `/licenses/${license.id}/seats`, { as: owner })
    expect(list.status).toBe(200)
    expect(list.body).toMatchObject({ seats: 3, used: 3, owner: { email: owner.email } })
    expect(list.body.members.map((member: { email: string; status: string }) => [member.email, member.status])).toEqual(
      [
        ['dev.one@example.test', 'pending'],
        ['dev.two@example.test', 'pending'],
      ],
    )
    // Revoking frees the place; revoking again changes nothing.
    const seatId = list.body.members[0].id
    expect((await api('DELETE', `/licenses/${license.id}/seats/${seatId}`, { as: owner })).status).toBe(204)
    expect((await api('DELETE', `/licenses/${license.id}/seats/${seatId}`, { as: owner })).status).toBe(204)
    expect((await assign(owner, license, 'dev.three@example.test')).status).toBe(201)
  })

  it('the invitation email carries a 7-day single-use link; the database keeps only its hash', async () => {
    const { owner, license } = await buyTeam(PRICES.ultimate, 2)
    await assign(owner, license, 'hashed@example.test')
    const token = await claimTokenFor('hashed@example.test')
    const [seat] = await rows(payload(), 'license_seats', { license: { equals: license.id } })
    const stored = await payload().db.drizzle.execute(
      `SELECT claim_token_hash FROM license_seats WHERE id = ${seat!.id}` as never,
    )
    const hash = (stored as unknown as { rows: { claim_token_hash: string }[] }).rows[0]!.claim_token_hash
    expect(hash).toMatch(/^[0-9a-f]{64}$/)
    expect(hash).not.toContain(token)
    const days = (new Date(seat!.claimExpiresAt!).getTime() - Date.now()) / 86_400_000
    expect(days).toBeGreaterThan(6.9)
    expect(days).toBeLessThanOrEqual(7)
  })

  it('answers the same for an email with an account and one without (no enumeration)', async () => {
    const { owner, license } = await buyTeam(PRICES.ultimate, 3)
    const existing = await createUser(payload(), 'customer')
    const known = await assign(owner, license, existing.email)
    const unknown = await assign(owner, license, 'nobody-here@example.test')
    expect(known.status).toBe(unknown.status)
    expect(Object.keys(known.body).sort()).toEqual(Object.keys(unknown.body).sort())
    expect(known.body.status).toBe(unknown.body.status)
  })

  it('concurrent assignments never pass the seat count', async () => {
    const { owner, license } = await buyTeam(PRICES.ultimate, 4)
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, index) => assign(owner, license, `race-${index}@example.test`)),
    )
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(3)
    expect(
      answers
        .filter((answer) => answer.status === 409)
        .every((answer) => answer.body.errors[0].code === 'seats_exhausted'),
    ).toBe(true)
    expect(await rows(payload(), 'license_seats', { license: { equals: license.id } })).toHaveLength(3)
  })

  it('another customer gets 404 for every seat endpoint; a member gets 403 not_license_owner, by session and by API key', async () => {
    const { owner, license } = await buyTeam(PRICES.ultimate, 3)
    const stranger = await createUser(payload(), 'customer')
    expect((await api('GET', `/licenses/${license.id}/seats`, { as: stranger })).body.errors[0].code).toBe(
      'license_not_found',
    )
    expect((await assign(stranger, license, 'x@example.test')).body.errors[0].code).toBe('license_not_found')
    expect((await api('GET', '/licenses/abc/seats', { as: owner })).status).toBe(404)
    expect((await api('GET', `/licenses/${license.id}/seats`)).status).toBe(401)

    await assign(owner, license, 'member-key@example.test')
    const { member, outcome } = await claimAs('member-key@example.test', await claimTokenFor('member-key@example.test'))
    expect(outcome.result).toBe('claimed')
    const asMember = await api('GET', `/licenses/${license.id}/seats`, { as: member })
    expect(asMember.status).toBe(403)
    expect(asMember.body.errors[0].code).toBe('not_license_owner')
    expect((await assign(member, license, 'friend@example.test')).body.errors[0].code).toBe('not_license_owner')
    const [seat] = await rows(payload(), 'license_seats', { license: { equals: license.id } })
    expect((await api('DELETE', `/licenses/${license.id}/seats/${seat!.id}`, { as: member })).status).toBe(403)
    // Nor the owner's installations.
    expect((await api('GET', `/licenses/${license.id}/activations`, { as: member })).body.errors[0].code).toBe(
      'not_license_owner',
    )
    expect((await api('DELETE', `/licenses/${license.id}/activations/1`, { as: member })).body.errors[0].code).toBe(
      'not_license_owner',
    )

    // The member's own API key (Ultimate grants `api` to members too) acts as the member: still not the owner.
    const created = await api<{ key: string }>('POST', '/account/api-keys', { as: member, body: { name: 'ci' } })
    expect(created.status).toBe(201)
    const bearer = { authorization: `Bearer ${created.body.key}` }
    const byKey = await api('POST', `/licenses/${license.id}/seats`, {
      headers: bearer,
      body: { email: 'friend2@example.test' },
    })
    expect(byKey.status).toBe(403)
    expect(byKey.body.errors[0].code).toBe('not_license_owner')
    expect((await api('DELETE', `/licenses/${license.id}/seats/${seat!.id}`, { headers: bearer })).status).toBe(403)
    expect(
      (await rows(payload(), 'license_seats', { license: { equals: license.id } })).map((row) => row.status),
    ).toEqual(['claimed'])
  })

  it('customers read no seat or activation rows through REST, where, joins or GraphQL', async () => {
    const { owner, license } = await buyTeam(PRICES.ultimate, 2)
    await assign(owner, license, 'hidden@example.test')
    for (const path of [
      '/license_seats',
      `/license_seats?where[license][equals]=${license.id}`,
      '/license_activations',
    ]) {
      const response = await api('GET', path, { as: owner })
      expect(response.status, path).toBe(403)
    }
    const own = await api('GET', `/licenses/${license.id}?joins[teamSeats][limit]=10`, { as: owner })
    expect(own.status).toBe(200)
    expect(own.body.teamSeats).toBeUndefined()
    expect(own.body.activations).toBeUndefined()
    const gql = await graphql(
      `
        {
          LicenseSeats {
            docs {
              email
            }
          }
        }
      `,
      owner,
    )
    expect(gql.data?.LicenseSeats ?? null).toBeNull()
    expect(gql.errors?.length).toBeGreaterThan(0)
    const joined = await graphql(
      `
        {
          Licenses {
            docs {
              id
              teamSeats {
                docs {
                  email
                }
              }
            }
          }
        }
      `,
      owner,
    )
    expect(JSON.stringify(joined)).not.toContain('hidden@example.test')
  })
})

describe('claiming a seat', () => {
  it("only the signed-in, verified account with the seat's email claims it; a forwarded or reused link claims nothing", async () => {
    const { owner, license } = await buyTeam(PRICES.ultimate, 3)
    await assign(owner, license, 'claimer@example.test')
    const token = await claimTokenFor('claimer@example.test')

    // Signed out: the token waits in a cookie scoped to the callback, and sign-in comes back to it.
    const signedOut = await handleSeatClaim(payload(), {
      params: new URLSearchParams({ type: 'seat', token }),
      cookies: new Map(),
      user: null,
    })
    expect(signedOut.location).toBe(
      `${payload().config.serverURL}/sign-in?next=%2Fauth%2Fcallback%3Ftype%3Dseat&notice=seat`,
    )
    expect(signedOut.cookies[0]).toMatch(
      new RegExp(`^${SEAT_COOKIE}=${token}; Path=/auth/callback; HttpOnly; SameSite=Lax`),
    )

    // Forwarded to someone else: refused, and the seat stays for its addressee.
    const other = await createUser(payload(), 'customer')
    expect((await claimSeat(payload(), token, other.user)).result).toBe('wrong_account')
    // The addressee's account, not yet verified: refused until confirmed.
    const unverified = await createUser(payload(), 'customer', { email: 'claimer@example.test', emailVerified: false })
    expect((await claimSeat(payload(), token, unverified.user)).result).toBe('unverified')
    await payload().update({
      collection: 'users',
      id: unverified.user.id,
      data: { emailVerified: true },
      overrideAccess: true,
    })

    // Back from sign-in: the cookie's token, the verified addressee.
    const claimed = await handleSeatClaim(payload(), {
      params: new URLSearchParams({ type: 'seat' }),
      cookies: new Map([[SEAT_COOKIE, token]]),
      user: { ...unverified.user, emailVerified: true },
    })
    expect(claimed.location).toBe(`${payload().config.serverURL}/dashboard?seat=claimed`)
    expect(claimed.cookies[0]).toContain('Max-Age=0')
    const [seat] = await rows(payload(), 'license_seats', { license: { equals: license.id } })
    expect(seat).toMatchObject({ status: 'claimed', member: unverified.user.id })
    expect(seat!.claimedAt).toBeTruthy()

    // Used twice: nothing more to claim, for anyone.
    expect((await claimSeat(payload(), token, { ...unverified.user, emailVerified: true })).result).toBe('invalid_link')
    expect((await claimSeat(payload(), token, other.user)).result).toBe('invalid_link')
    expect((await claimSeat(payload(), 'not-a-token', other.user)).result).toBe('invalid_link')
  })

  it('an expired or revoked link claims nothing', async () => {
    const { owner, license } = await buyTeam(PRICES.ultimate, 3)
    await assign(owner, license, 'late@example.test')
    await assign(owner, license, 'gone@example.test')
    const late = await claimTokenFor('late@example.test')
    const gone = await claimTokenFor('gone@example.test')
    await payload().db.drizzle.execute(
      `UPDATE license_seats SET claim_expires_at = now() - interval '1 second' WHERE email = 'late@example.test'`,
    )
    expect((await claimAs('late@example.test', late)).outcome.result).toBe('invalid_link')
    const [goneSeat] = await rows(payload(), 'license_seats', { email: { equals: 'gone@example.test' } })
    await api('DELETE', `/licenses/${license.id}/seats/${goneSeat!.id}`, { as: owner })
    expect((await claimAs('gone@example.test', gone)).outcome.result).toBe('invalid_link')
  })

  it('two tabs claiming at once: one claim', async () => {
    const { owner, license } = await buyTeam(PRICES.ultimate, 2)
    await assign(owner, license, 'twotabs@example.test')
    const token = await claimTokenFor('twotabs@example.test')
    const member = await createUser(payload(), 'customer', { email: 'twotabs@example.test' })
    const results = await Promise.all([
      claimSeat(payload(), token, member.user),
      claimSeat(payload(), token, member.user),
    ])
    expect(results.map((result) => result.result).sort()).toEqual(['claimed', 'invalid_link'])
  })
})

describe('what a member gets, and loses', () => {
  it('downloads and templates while the seat lasts; a revoked seat ends them at once', async () => {
    const { owner, license } = await buyTeam(PRICES.ultimate, 2)
    await assign(owner, license, 'downloader@example.test')
    const { member } = await claimAs('downloader@example.test', await claimTokenFor('downloader@example.test'))
    const download = await api('GET', '/download', { as: member })
    expect(download.status).toBe(200)
    expect(download.body.version).toBe('1.0.0')
    expect((await api('GET', '/licenses', { as: member })).body.docs).toEqual([]) // the key stays the owner's

    const [seat] = await rows(payload(), 'license_seats', { license: { equals: license.id } })
    expect((await api('DELETE', `/licenses/${license.id}/seats/${seat!.id}`, { as: owner })).status).toBe(204)
    const after = await api('GET', '/download', { as: member })
    expect(after.status).toBe(403)
    expect(after.body.errors[0].code).toBe('license_required')
    // The owner keeps everything.
    expect((await api('GET', '/download', { as: owner })).status).toBe(200)
  })

  it('a subscription whose paid quantity drops below the seats in use ends the newest seats beyond it and emails the owner which', async () => {
    const [pro] = await rows(payload(), 'plans', { slug: { equals: 'pro' } })
    await payload().update({ collection: 'plans', id: pro!.id, data: { maxSeats: 5 }, overrideAccess: true })
    try {
      const { owner, license } = await buyTeam(PRICES.proMonthly, 3)
      expect(license.seats).toBe(3)
      await assign(owner, license, 'first-member@example.test')
      const { member: first } = await claimAs(
        'first-member@example.test',
        await claimTokenFor('first-member@example.test'),
      )
      await assign(owner, license, 'second-member@example.test')
      const secondToken = await claimTokenFor('second-member@example.test')
      expect((await api('GET', `/licenses/${license.id}/seats`, { as: owner })).body).toMatchObject({
        seats: 3,
        used: 3,
      })

      const processor = billingRuntimeOf(payload()).require().processor
      const [subscriptionRow] = await rows(payload(), 'user_subscriptions', { user: { equals: owner.user.id } })
      const subscriptionId = subscriptionRow!.processorSubscriptionId
      const itemId = (await processor.subscriptions.retrieve(subscriptionId)).items.data[0]!.id
      /** The quantity changed through the processor's API; the jobs it queued, returned before they run. */
      const setQuantity = async (quantity: number) => {
        const updated = await processor.subscriptions.update(subscriptionId, { items: [{ id: itemId, quantity }] })
        expect(updated.items.data[0]!.quantity).toBe(quantity)
        await standIn.settled()
        const queued = (await payload().find({ collection: 'payload-jobs', limit: 1000, depth: 0 })).docs
        await payload().jobs.run({ limit: 1000 })
        return queued
      }

      // 3 -> 2: the newest seat (the pending one) ends; the first member keeps theirs.
      await setQuantity(2)
      const two = await api('GET', `/licenses/${license.id}/seats`, { as: owner })
      expect(two.body).toMatchObject({
        seats: 2,
        used: 2,
        members: [expect.objectContaining({ email: 'first-member@example.test', status: 'claimed' })],
      })
      expect((await claimAs('second-member@example.test', secondToken)).outcome).toEqual({ result: 'invalid_link' })
      const firstNotice = await smtp.waitFor(
        (message) =>
          JSON.stringify(message.to ?? '').includes(owner.email) &&
          /seat of your .* license ended/.test(message.subject ?? ''),
      )
      expect(firstNotice.text).toContain('second-member@example.test (invited, had not joined yet)')
      expect(firstNotice.text).not.toContain('first-member@example.test')
      expect((await api('GET', '/download', { as: first })).status).toBe(200)

      // 2 -> 1: the owner alone; the member loses access at once, and their repository access is withdrawn.
      const queued = await setQuantity(1)
      expect(
        queued.filter(
          (job) => job.taskSlug === 'withdrawRepoAccess' && (job.input as { userId?: number }).userId === first.user.id,
        ),
      ).toHaveLength(1)
      expect((await api('GET', `/licenses/${license.id}/seats`, { as: owner })).body).toMatchObject({
        seats: 1,
        used: 1,
        members: [],
      })
      const denied = await api('GET', '/download', { as: first })
      expect(denied.status).toBe(403)
      expect(denied.body.errors[0].code).toBe('license_required')
      expect((await api('GET', '/download', { as: owner })).status).toBe(200)
      const secondNotice = await smtp.waitFor(
        (message) =>
          JSON.stringify(message.to ?? '').includes(owner.email) &&
          /first-member@example\.test \(had joined\)/.test(message.text ?? ''),
      )
      expect(secondNotice.subject).toMatch(/A seat of your .* Pro license ended/)
      const revokedSeats = await rows(payload(), 'analytics_events', { name: { equals: 'seat_revoked' } })
      expect(
        revokedSeats
          .filter((event) => (event.properties as { licenseId?: number; by?: string }).licenseId === license.id)
          .map((event) => (event.properties as { by: string }).by),
      ).toEqual(['billing', 'billing'])

      // Back up to 3: ended seats stay ended (the owner gives them again); the same event again ends nothing more.
      await setQuantity(3)
      expect((await api('GET', `/licenses/${license.id}/seats`, { as: owner })).body).toMatchObject({
        seats: 3,
        used: 1,
        members: [],
      })
      const updates = standIn
        .events()
        .map((record) => record.event)
        .filter((event) => event.type === 'customer.subscription.updated')
      for (const event of updates) await standIn.redeliver(event.id)
      await standIn.settled()
      expect((await api('GET', `/licenses/${license.id}/seats`, { as: owner })).body).toMatchObject({
        seats: 3,
        used: 1,
      })
    } finally {
      await payload().update({ collection: 'plans', id: pro!.id, data: { maxSeats: 1 }, overrideAccess: true })
    }
  })

  it('on Ultimate a member gets their own repository invitation; revoking the seat withdraws it', async () => {
    const { owner, license } = await buyTeam(PRICES.ultimate, 2)
    await assign(owner, license, 'repo-member@example.test')
    const { member } = await claimAs('repo-member@example.test', await claimTokenFor('repo-member@example.test'))
    codeHost.addUser('team-member-gh')
    const requested = await api('POST', '/repo-access', { as: member, body: { username: 'team-member-gh' } })
    expect(requested.status).toBe(200)
    expect([...codeHost.state.invitations.values()].some((invitation) => invitation.login === 'team-member-gh')).toBe(
      true,
    )

    const [seat] = await rows(payload(), 'license_seats', { license: { equals: license.id } })
    await api('DELETE', `/licenses/${license.id}/seats/${seat!.id}`, { as: owner })
    await payload().jobs.run()
    expect([...codeHost.state.invitations.values()].some((invitation) => invitation.login === 'team-member-gh')).toBe(
      false,
    )
    const [access] = await rows(payload(), 'repo_access', { user: { equals: member.user.id } })
    expect(access!.status).toBe('revoked')
  })

  it("revoking the license ends every member's access and withdraws their repository access", async () => {
    const { owner, license } = await buyTeam(PRICES.ultimate, 2)
    await assign(owner, license, 'revoked-team@example.test')
    const { member } = await claimAs('revoked-team@example.test', await claimTokenFor('revoked-team@example.test'))
    codeHost.addUser('revoked-team-gh')
    codeHost.addUser('revoked-owner-gh')
    expect((await api('POST', '/repo-access', { as: member, body: { username: 'revoked-team-gh' } })).status).toBe(200)
    expect((await api('POST', '/repo-access', { as: owner, body: { username: 'revoked-owner-gh' } })).status).toBe(200)

    const staff = await createUser(payload(), 'support')
    expect(
      (await api('POST', `/staff/licenses/${license.id}/revoke`, { as: staff, body: { reason: 'chargeback fraud' } }))
        .status,
    ).toBe(200)
    expect((await api('GET', '/download', { as: member })).status).toBe(403)
    await payload().jobs.run()
    const logins = [...codeHost.state.invitations.values()].map((invitation) => invitation.login)
    expect(logins).not.toContain('revoked-team-gh')
    expect(logins).not.toContain('revoked-owner-gh')
    // A seat cannot be assigned on a license that is not active.
    expect((await assign(owner, license, 'another@example.test')).body.errors[0].code).toBe('license_inactive')
  })

  it('records seat_assigned, seat_claimed and seat_revoked once each, and staff see the seat with its support action', async () => {
    const { owner, license } = await buyTeam(PRICES.ultimate, 2)
    const assigned = await assign(owner, license, 'tracked@example.test')
    await claimAs('tracked@example.test', await claimTokenFor('tracked@example.test'))
    const staff = await createUser(payload(), 'support')
    const staffView = await api('GET', `/licenses/${license.id}?depth=0`, { as: staff })
    expect(staffView.body.teamSeats.docs).toHaveLength(1)
    const revoked = await api('POST', `/staff/license-seats/${assigned.body.id}/revoke`, {
      as: staff,
      body: { reason: 'left the agency' },
    })
    expect(revoked.status).toBe(200)
    expect(revoked.body.seat.status).toBe('revoked')
    expect(
      (await api('POST', `/staff/license-seats/${assigned.body.id}/revoke`, { as: staff, body: { reason: 'again' } }))
        .status,
    ).toBe(409)
    const customerTry = await api('POST', `/staff/license-seats/${assigned.body.id}/revoke`, {
      as: owner,
      body: { reason: 'mine' },
    })
    expect(customerTry.status).toBe(403)
    const events = await rows(payload(), 'analytics_events', { sourceEventId: { equals: `seat:${assigned.body.id}` } })
    expect(events.map((event) => event.name).sort()).toEqual(['seat_assigned', 'seat_claimed', 'seat_revoked'])
    const [audit] = await rows(payload(), 'audit_log', { targetId: { equals: String(assigned.body.id) } })
    expect(audit).toMatchObject({ action: 'seat.revoke', targetCollection: 'license_seats', reason: 'left the agency' })
  })
})

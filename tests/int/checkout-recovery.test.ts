import '../support/billing-env'

import crypto from 'node:crypto'

import type { ParsedMail } from 'mailparser'
import type Stripe from 'stripe'
import { beforeAll, describe, expect, it } from 'vitest'

import { GET as recoverRoute } from '../../src/app/(frontend)/checkout/recover/[id]/route'
import { runtimeOf } from '../../src/config/runtime'
import { checkout_recoveries, payload_jobs } from '../../src/db/schema.generated'
import { bare, executeOn, sql } from '../../src/db/transaction'
import { eraseAccount } from '../../src/privacy/erasure'
import { exportAccount } from '../../src/privacy/export'
import {
  addressOfUnsubscribeToken,
  emailHash,
  recoverPath,
  sealRecoveryUrl,
  unsealRecoveryUrl,
  unsubscribeToken,
} from '../../src/recovery/links'
import { sendRecoveryEmail } from '../../src/recovery/send'
import { loadInsights } from '../../src/staff/insights'
import { PRICES, service, smtp, standIn } from '../support/billing-env'
import { paidStandardCheckout, rows, seedStandInPlans } from '../support/billing'
import { api, createUser, graphql, SERVER_URL, type TestUser, usePayload } from '../support/payload'

const payload = usePayload()
const recovery = () => runtimeOf(payload(), 'recovery')
const processor = () => runtimeOf(payload(), 'billing').require().processor

const today = () => new Date().toISOString().slice(0, 10)
const freshEmail = (label: string) => `${label}-${crypto.randomBytes(4).toString('hex')}@example.test`

let staff: TestUser

beforeAll(async () => {
  await seedStandInPlans(payload())
  staff = await createUser(payload(), 'support')
})

/** A Standard checkout opened through the service, as the pricing page's Buy button does. */
const openCheckout = async (as: TestUser | null = null, headers: Record<string, string> = {}) => {
  const opened = await api<{ id: string; url: string }>('POST', '/checkout_sessions', {
    as,
    body: { priceId: PRICES.standard },
    headers,
  })
  expect(opened.status, JSON.stringify(opened.body)).toBe(200)
  return opened.body.id
}

/** The buyer types their address (and ticks the promotional email box or not), then leaves; the processor expires it. */
const abandon = async (
  sessionId: string,
  buyer: { email?: string; promotions?: 'opt_in' | 'opt_out' } = {},
): Promise<Stripe.Event> => {
  if (buyer.email) standIn.fillIn(sessionId, { email: buyer.email, promotions: buyer.promotions ?? 'opt_in' })
  const [expired] = await standIn.expire(sessionId)
  await standIn.settled()
  expect(expired?.type).toBe('checkout.session.expired')
  return expired!
}

const recoveryRow = async (sessionId: string) =>
  (await rows(payload(), 'checkout_recoveries', { checkoutSessionId: { equals: sessionId } }))[0]

/** Time passes: every recovery email's job is due now. */
const recoveryEmailsDue = () =>
  executeOn(
    payload(),
    undefined,
    sql`UPDATE ${payload_jobs} SET ${bare(payload_jobs.waitUntil)} = now() - interval '1 second'
        WHERE ${payload_jobs.taskSlug} = 'sendRecoveryEmail' AND ${payload_jobs.completedAt} IS NULL`,
  )

const runJobs = () => payload().jobs.run({ limit: 200 })

const recoveryEmailsTo = (email: string) =>
  smtp.messages.filter(
    (message) =>
      JSON.stringify(message.to).toLowerCase().includes(email.toLowerCase()) &&
      /checkout is saved/.test(message.subject ?? ''),
  )

const linkIn = (message: ParsedMail, pattern: RegExp) => {
  const found = (message.text ?? '').match(pattern)?.[0]
  if (!found) throw new Error(`no link matching ${pattern} in ${message.text}`)
  return found
}

/** GET /checkout/recover/<id>?t= through the page route Next serves; its Location. */
const followRecoverLink = async (link: string) => {
  const url = new URL(link, SERVER_URL)
  const id = decodeURIComponent(url.pathname.split('/').pop()!)
  const answer = await recoverRoute(new Request(url), { params: Promise.resolve({ id }) })
  expect(answer.status).toBe(302)
  return answer.headers.get('location')!
}

const events = async (name: string, sourceId: string) =>
  rows(payload(), 'analytics_events', { and: [{ name: { equals: name } }, { sourceEventId: { equals: sourceId } }] })

describe('the checkout asks the processor for recovery', () => {
  it('an expiry, a recovery link and promotional consent; a retry with one key sends the same', async () => {
    const buyer = await createUser(payload(), 'customer')
    const key = `recovery-${crypto.randomUUID()}`
    const first = await openCheckout(buyer, { 'Idempotency-Key': key })
    // A second later: the expiry still counts from the key's first use, so the processor sees the same request.
    await new Promise((resolve) => setTimeout(resolve, 1_100))
    expect(await openCheckout(buyer, { 'Idempotency-Key': key })).toBe(first)

    const session = await processor().checkout.sessions.retrieve(first)
    const hours = (session.expires_at - Math.floor(Date.now() / 1000)) / 3600
    expect(hours).toBeGreaterThan(22.9)
    expect(hours).toBeLessThanOrEqual(23)
    // Promotion codes on the reopened checkout as on the first: as the plan allows.
    expect(session.after_expiration?.recovery).toMatchObject({
      enabled: true,
      allow_promotion_codes: session.allow_promotion_codes,
    })
    expect(session.consent_collection?.promotions).toBe('auto')
  })

  it('turned off, a checkout only expires', async () => {
    recovery().settings.enabled = false
    try {
      const id = await openCheckout(await createUser(payload(), 'customer'))
      const session = await processor().checkout.sessions.retrieve(id)
      expect(session.after_expiration).toBeNull()
      expect(session.consent_collection).toBeNull()
      expect(session.expires_at).toBeGreaterThan(Date.now() / 1000 + 22 * 3600)
    } finally {
      recovery().settings.enabled = true
    }
  })
})

describe('an abandoned checkout', () => {
  it('becomes one email after the delay; its link reopens the checkout, and paying gives one license', async () => {
    const email = freshEmail('leaver')
    const sessionId = await openCheckout()
    const expired = await abandon(sessionId, { email })

    const row = await recoveryRow(sessionId)
    expect(row).toMatchObject({ status: 'waiting', email, plan: 'standard', amount: 14900, currency: 'usd' })
    expect(new Date(row!.emailDueAt!).getTime()).toBeGreaterThan(Date.now() + 58 * 60_000)
    expect(await events('checkout_expired', sessionId)).toHaveLength(1)

    // The event again, three times, two of them at once: still one row and one email.
    await Promise.all([standIn.redeliver(expired.id), standIn.redeliver(expired.id)])
    expect((await standIn.redeliver(expired.id)).status).toBe(200)
    expect(await rows(payload(), 'checkout_recoveries', { checkoutSessionId: { equals: sessionId } })).toHaveLength(1)

    // Not due yet: the queue leaves it.
    await runJobs()
    expect(recoveryEmailsTo(email)).toHaveLength(0)
    await recoveryEmailsDue()
    // The recovery job queues the email; the next turn sends it.
    await runJobs()
    await runJobs()
    const message = await smtp.waitFor((mail) => recoveryEmailsTo(email).includes(mail))
    await recoveryEmailsDue()
    await runJobs()
    expect(recoveryEmailsTo(email)).toHaveLength(1)
    expect(await recoveryRow(sessionId)).toMatchObject({ status: 'emailed' })
    expect(await events('recovery_email_sent', sessionId)).toHaveLength(1)

    // RFC 8058: a one-click unsubscribe URL on the service, and the visible link.
    const header = (name: string) =>
      message.headerLines.find((line) => line.key === name)?.line.replace(/\r\n\s+/g, ' ')
    expect(header('list-unsubscribe-post')).toBe('List-Unsubscribe-Post: List-Unsubscribe=One-Click')
    expect(header('list-unsubscribe')).toMatch(
      /^List-Unsubscribe: <http:\/\/localhost:3000\/api\/email\/unsubscribe\/v1\.[\w-]+>$/,
    )
    expect(message.text).toMatch(/Unsubscribe: http:\/\/localhost:3000\/unsubscribe\/v1\./)
    expect(message.text).toContain('$149.00')

    const recoverLink = linkIn(message, /http:\/\/localhost:3000\/checkout\/recover\/\S+/)
    const processorLink = await followRecoverLink(recoverLink)
    expect(processorLink.startsWith(`${standIn.url}/r/`)).toBe(true)
    const reopened = await fetch(processorLink, { redirect: 'manual' })
    expect(reopened.status).toBe(303)
    const copy = reopened.headers.get('location')!.split('/').pop()!
    expect(copy).not.toBe(sessionId)
    expect((await processor().checkout.sessions.retrieve(copy)).recovered_from).toBe(sessionId)

    await standIn.pay(copy, { email })
    await standIn.settled()
    const purchases = await rows(payload(), 'one_time_purchases', { processorCheckoutSessionId: { equals: copy } })
    expect(purchases).toHaveLength(1)
    expect(await rows(payload(), 'licenses', { email: { equals: email } })).toHaveLength(1)
    expect(await recoveryRow(sessionId)).toMatchObject({
      status: 'recovered',
      recoveredSessionId: copy,
      recoveredAmount: 14900,
    })
    const recovered = await events('checkout_recovered', sessionId)
    expect(recovered).toHaveLength(1)
    expect(recovered[0]!.properties).toMatchObject({ amount: 14900, currency: 'usd', sessionId: copy })

    // The link now says the checkout is paid.
    expect(await followRecoverLink(recoverLink)).toBe('/checkout/recovery?link=complete')

    const insights = await loadInsights(payload(), { from: today(), to: today() })
    const usd = insights.recovery.find((day) => day.currency === 'usd')!
    expect(usd.expired).toBeGreaterThanOrEqual(1)
    expect(usd.emailed).toBeGreaterThanOrEqual(1)
    expect(usd.recovered).toBeGreaterThanOrEqual(1)
    expect(usd.recoveredRevenue).toBeGreaterThanOrEqual(14900)
    const csv = await api<string>('GET', `/staff/insights.csv?series=recovery&from=${today()}&to=${today()}`, {
      as: staff,
    })
    expect(csv.status).toBe(200)
    expect(csv.body.split('\r\n')[0]).toBe('day,currency,expired,emailed,recovered,recoveredRevenue')
    expect(csv.body).toContain(`${today()},usd,${usd.expired},${usd.emailed},${usd.recovered},${usd.recoveredRevenue}`)
  })

  it('gets no email without consent, without an address, or with recovery turned off', async () => {
    const declined = freshEmail('declined')
    const noConsent = await openCheckout()
    await abandon(noConsent, { email: declined, promotions: 'opt_out' })
    expect(await recoveryRow(noConsent)).toMatchObject({ status: 'not_sent', reason: 'no_consent', email: null })

    const silent = await openCheckout()
    await abandon(silent)
    expect(await recoveryRow(silent)).toMatchObject({ status: 'not_sent', reason: 'no_consent' })

    // Consent without an address: the processor's form asks for one, but the service does not count on it.
    const crafted = await openCheckout()
    const session = await processor().checkout.sessions.retrieve(crafted)
    const body = JSON.stringify({
      id: `evt_crafted_${crypto.randomBytes(6).toString('hex')}`,
      object: 'event',
      type: 'checkout.session.expired',
      created: Math.floor(Date.now() / 1000),
      livemode: false,
      api_version: null,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
      data: {
        object: {
          ...session,
          status: 'expired',
          customer_details: null,
          customer_email: null,
          consent: { promotions: 'opt_in', terms_of_service: null },
          after_expiration: {
            recovery: {
              enabled: true,
              allow_promotion_codes: false,
              url: `${standIn.url}/r/crafted`,
              expires_at: Math.floor(Date.now() / 1000) + 30 * 86_400,
            },
          },
        },
      },
    })
    const delivered = await fetch(`${service.url}/api/webhooks/processor`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'stripe-signature': standIn.sign(body) },
      body,
    })
    expect(delivered.status).toBe(200)
    expect(await recoveryRow(crafted)).toMatchObject({ status: 'not_sent', reason: 'no_email' })

    const off = freshEmail('off')
    const offSession = await openCheckout()
    recovery().settings.enabled = false
    try {
      await abandon(offSession, { email: off })
    } finally {
      recovery().settings.enabled = true
    }
    expect(await recoveryRow(offSession)).toMatchObject({ status: 'not_sent', reason: 'recovery_off' })
    expect(await events('checkout_expired', offSession)).toHaveLength(1)

    await recoveryEmailsDue()
    await runJobs()
    for (const address of [declined, off]) expect(recoveryEmailsTo(address)).toHaveLength(0)
  })

  it('a signed-in buyer with consent is emailed at their account’s address', async () => {
    const customer = await createUser(payload(), 'customer')
    const sessionId = await openCheckout(customer)
    standIn.fillIn(sessionId, { email: customer.email, promotions: 'opt_in' })
    await standIn.expire(sessionId)
    await standIn.settled()
    expect(await recoveryRow(sessionId)).toMatchObject({ status: 'waiting', user: customer.user.id })
  })

  it('is not emailed to a buyer who paid since, whatever the case of the address', async () => {
    const email = freshEmail('paid-since')
    const sessionId = await openCheckout()
    await abandon(sessionId, { email })
    await paidStandardCheckout(processor(), email.toUpperCase())
    await recoveryEmailsDue()
    await runJobs()
    expect(await recoveryRow(sessionId)).toMatchObject({ status: 'not_sent', reason: 'paid_since' })
    expect(recoveryEmailsTo(email)).toHaveLength(0)
  })

  it('delivered after the recovered purchase (its first delivery lost): counted once, no email', async () => {
    const email = freshEmail('late-expiry')
    const sessionId = await openCheckout()
    standIn.fillIn(sessionId, { email, promotions: 'opt_in' })
    standIn.setWebhookUrl(null)
    let expired: Stripe.Event
    try {
      ;[expired] = (await standIn.expire(sessionId)) as [Stripe.Event]
      await standIn.settled()
    } finally {
      standIn.setWebhookUrl(`${service.url}/api/webhooks/processor`)
    }
    const recoveryUrl = (expired.data.object as Stripe.Checkout.Session).after_expiration!.recovery!.url!
    const copy = (await fetch(recoveryUrl, { redirect: 'manual' })).headers.get('location')!.split('/').pop()!
    await standIn.pay(copy, { email })
    await standIn.settled()
    expect(await recoveryRow(sessionId)).toMatchObject({ status: 'recovered', recoveredSessionId: copy })

    expect((await standIn.redeliver(expired.id)).status).toBe(200)
    expect(await recoveryRow(sessionId)).toMatchObject({ status: 'recovered', email })
    expect(await events('checkout_expired', sessionId)).toHaveLength(1)
    expect(await events('checkout_recovered', sessionId)).toHaveLength(1)
    await recoveryEmailsDue()
    await runJobs()
    expect(recoveryEmailsTo(email)).toHaveLength(0)
  })

  it('two due at once for one address: one email, the other dropped as recently emailed', async () => {
    const email = freshEmail('twice')
    const first = await openCheckout()
    const second = await openCheckout(null, { 'Idempotency-Key': crypto.randomUUID() })
    await abandon(first, { email })
    await abandon(second, { email: email.toUpperCase() })
    const ids = [(await recoveryRow(first))!.id, (await recoveryRow(second))!.id]
    const outcomes = await Promise.all(ids.map((id) => sendRecoveryEmail(payload(), recovery(), id)))
    expect(outcomes.sort()).toEqual(['recently_emailed', 'sent'])
    await runJobs()
    await smtp.waitFor((mail) => recoveryEmailsTo(email).includes(mail))
    expect(recoveryEmailsTo(email)).toHaveLength(1)
  })

  it('is not emailed once the processor’s link has expired; the link then says so', async () => {
    const email = freshEmail('stale')
    const sessionId = await openCheckout()
    await abandon(sessionId, { email })
    const signed = recoverPath(payload().secret, sessionId)
    expect((await followRecoverLink(signed)).startsWith(`${standIn.url}/r/`)).toBe(true)
    // 30 days pass.
    standIn.expireRecovery(sessionId)
    await executeOn(
      payload(),
      undefined,
      sql`UPDATE ${checkout_recoveries} SET ${bare(checkout_recoveries.recoveryExpiresAt)} = now() - interval '1 minute'
          WHERE ${checkout_recoveries.checkoutSessionId} = ${sessionId}`,
    )
    expect(await followRecoverLink(signed)).toBe('/checkout/recovery?link=expired')
    await recoveryEmailsDue()
    await runJobs()
    expect(await recoveryRow(sessionId)).toMatchObject({ status: 'not_sent', reason: 'link_expired' })
  })
})

describe('the recovery link', () => {
  it('opens nothing for another buyer’s checkout, an altered or missing signature, an unknown checkout', async () => {
    const mine = await openCheckout()
    const theirs = await openCheckout()
    await abandon(mine, { email: freshEmail('mine') })
    await abandon(theirs, { email: freshEmail('theirs') })
    const signature = new URL(recoverPath(payload().secret, mine), SERVER_URL).searchParams.get('t')!
    const invalid = '/checkout/recovery?link=invalid'
    expect(await followRecoverLink(`/checkout/recover/${theirs}?t=${signature}`)).toBe(invalid)
    expect(await followRecoverLink(`/checkout/recover/${mine}`)).toBe(invalid)
    // The last character changed to another one (an 'A' stays an 'A' one time in 64 otherwise).
    const altered = `${signature.slice(0, -1)}${signature.endsWith('A') ? 'B' : 'A'}`
    expect(await followRecoverLink(`/checkout/recover/${mine}?t=${altered}`)).toBe(invalid)
    expect(await followRecoverLink(recoverPath('another-secret-entirely-0123456789', mine))).toBe(invalid)
    expect(await followRecoverLink(recoverPath(payload().secret, 'cs_test_unknown0123'))).toBe(invalid)
    expect(await followRecoverLink(`/checkout/recover/${encodeURIComponent('../../api/users')}?t=x`)).toBe(invalid)
    expect((await followRecoverLink(recoverPath(payload().secret, mine))).startsWith(`${standIn.url}/r/`)).toBe(true)
  })

  it('sealed under a secret since rotated, says it is not valid instead of failing', () => {
    const sealed = sealRecoveryUrl('the-old-secret-0123456789abcdef', 'https://checkout.example/r/x')
    expect(unsealRecoveryUrl(payload().secret, sealed)).toBeNull()
    expect(unsealRecoveryUrl('the-old-secret-0123456789abcdef', sealed)).toBe('https://checkout.example/r/x')
  })
})

describe('unsubscribing', () => {
  const post = (token: string, init: RequestInit = {}) =>
    fetch(`${service.url}/api/email/unsubscribe/${token}`, { method: 'POST', redirect: 'manual', ...init })
  const listed = async (email: string) =>
    (await rows(payload(), 'email_unsubscribes', { emailHash: { equals: emailHash(email) } })).length

  it('one click from a mail client, urlencoded or multipart, with no sign-in; a GET changes nothing', async () => {
    const email = freshEmail('one-click')
    const token = unsubscribeToken(payload().secret, email)
    const opened = await fetch(`${service.url}/api/email/unsubscribe/${token}`, { redirect: 'manual' })
    expect(opened.status).toBe(303)
    expect(opened.headers.get('location')).toBe(`/unsubscribe/${token}`)
    expect(await listed(email)).toBe(0)

    const answer = await post(token, {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    })
    expect(answer.status).toBe(200)
    expect(await answer.json()).toEqual({ unsubscribed: true })
    expect(await listed(email)).toBe(1)

    const form = new FormData()
    form.set('List-Unsubscribe', 'One-Click')
    const multipart = freshEmail('multipart')
    expect((await post(unsubscribeToken(payload().secret, multipart), { body: form })).status).toBe(200)
    expect(await listed(multipart)).toBe(1)
    // Again: still one row.
    expect((await post(token, { body: form })).status).toBe(200)
    expect(await listed(email)).toBe(1)
  })

  it('the page’s button (a browser’s own form post) goes back to the page, which says it is done', async () => {
    const email = freshEmail('button')
    const token = unsubscribeToken(payload().secret, email)
    // In-process: fetch() will not send a Sec-Fetch-Mode of its own choosing.
    const answer = await api(`POST`, `/email/unsubscribe/${token}`, {
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-mode': 'navigate' },
      body: 'List-Unsubscribe=One-Click',
    })
    expect(answer.status).toBe(303)
    expect(answer.headers.get('location')).toBe(`/unsubscribe/${token}?done=1`)
    expect(await listed(email)).toBe(1)
  })

  it('refuses a forged, altered or foreign token and another body, writing nothing', async () => {
    const email = freshEmail('forged')
    const token = unsubscribeToken(payload().secret, email)
    const oneClick = {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    }
    const altered = `${token.slice(0, -2)}${token.endsWith('AA') ? 'BB' : 'AA'}`
    for (const bad of [
      altered,
      unsubscribeToken('another-secret-entirely-0123456789', email),
      Buffer.from(email).toString('base64url'),
      'v1.' + 'A'.repeat(60),
    ]) {
      const answer = await post(bad, oneClick)
      expect(answer.status, bad).toBe(400)
      expect((await answer.json()).errors[0].code).toBe('invalid_token')
    }
    const wrongBody = await post(token, { headers: oneClick.headers, body: 'List-Unsubscribe=Yes' })
    expect(wrongBody.status).toBe(400)
    expect((await wrongBody.json()).errors[0].code).toBe('invalid_request')
    expect(await listed(email)).toBe(0)
    // Another purpose's sealed value (a recovery link) is no token either.
    expect(addressOfUnsubscribeToken(payload().secret, sealRecoveryUrl(payload().secret, email))).toBeNull()
  })

  it('an unsubscribed address gets no recovery email, in any case', async () => {
    const email = freshEmail('gone')
    expect(
      (
        await post(unsubscribeToken(payload().secret, email.toUpperCase()), {
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: 'List-Unsubscribe=One-Click',
        })
      ).status,
    ).toBe(200)
    const sessionId = await openCheckout()
    await abandon(sessionId, { email })
    await recoveryEmailsDue()
    await runJobs()
    expect(await recoveryRow(sessionId)).toMatchObject({ status: 'not_sent', reason: 'unsubscribed' })
    expect(recoveryEmailsTo(email)).toHaveLength(0)
  })
})

describe('access and privacy', () => {
  it('customers read nothing (REST, where, GraphQL); staff read no sealed link; nobody writes', async () => {
    const customer = await createUser(payload(), 'customer')
    const sessionId = await openCheckout(customer)
    standIn.fillIn(sessionId, { email: customer.email, promotions: 'opt_in' })
    await standIn.expire(sessionId)
    await standIn.settled()

    for (const path of [
      '/checkout_recoveries',
      `/checkout_recoveries?where[user][equals]=${customer.user.id}`,
      '/email_unsubscribes',
    ]) {
      expect((await api('GET', path, { as: customer })).status, path).toBe(403)
      expect((await api('GET', path)).status, path).toBe(403)
    }
    const viaGraphql = await graphql('{ CheckoutRecoveries { docs { id email } } }', customer)
    expect(viaGraphql.data?.CheckoutRecoveries ?? null).toBeNull()

    const read = await api<{ docs: Record<string, unknown>[] }>(
      'GET',
      `/checkout_recoveries?where[checkoutSessionId][equals]=${sessionId}`,
      { as: staff },
    )
    expect(read.status).toBe(200)
    expect(read.body.docs).toHaveLength(1)
    expect(read.body.docs[0]).not.toHaveProperty('recoveryUrl')
    expect(read.body.docs[0]).not.toHaveProperty('emailHash')
    const selected = await api<{ docs: Record<string, unknown>[] }>(
      'GET',
      `/checkout_recoveries?where[checkoutSessionId][equals]=${sessionId}&select[recoveryUrl]=true`,
      { as: staff },
    )
    expect(selected.body.docs[0]).not.toHaveProperty('recoveryUrl')
    const byLink = await api<{ docs: unknown[] }>('GET', '/checkout_recoveries?where[recoveryUrl][exists]=true', {
      as: staff,
    })
    expect(byLink.status === 400 || byLink.body.docs.length === 0).toBe(true)

    const admin = await createUser(payload(), 'admin')
    for (const who of [customer, staff, admin]) {
      expect(
        (
          await api('POST', '/checkout_recoveries', {
            as: who,
            body: { checkoutSessionId: 'cs_test_x', status: 'recovered' },
          })
        ).status,
      ).toBe(403)
      expect((await api('POST', '/email_unsubscribes', { as: who, body: { emailHash: 'x' } })).status).toBe(403)
      expect(
        (await api('DELETE', `/checkout_recoveries?where[checkoutSessionId][equals]=${sessionId}`, { as: who })).status,
      ).toBe(403)
    }
  })

  it('the export lists the account’s abandoned checkouts and the unsubscribe; erasure deletes them', async () => {
    const leaver = await createUser(payload(), 'customer')
    const sessionId = await openCheckout(leaver)
    standIn.fillIn(sessionId, { email: leaver.email, promotions: 'opt_in' })
    await standIn.expire(sessionId)
    await standIn.settled()
    await fetch(`${service.url}/api/email/unsubscribe/${unsubscribeToken(payload().secret, leaver.email)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    })
    const exported = await exportAccount(payload(), leaver.user)
    expect(exported.abandonedCheckouts).toEqual([
      expect.objectContaining({ email: leaver.email, plan: 'standard', status: 'waiting', amount: 14900 }),
    ])
    expect(exported.recoveryEmailsUnsubscribed).toBe(true)
    expect(JSON.stringify(exported)).not.toContain('recoveryUrl')

    const deletion = await api('POST', '/account/deletion', { as: leaver, body: { password: leaver.password } })
    expect(deletion.status, JSON.stringify(deletion.body)).toBe(202)
    const later = new Date(Date.now() + 60 * 86_400_000)
    expect(await eraseAccount(payload(), leaver.user.id, runtimeOf(payload(), 'privacy').erasure, later)).toBe(
      'complete',
    )
    expect(await recoveryRow(sessionId)).toBeUndefined()
    await recoveryEmailsDue()
    await runJobs()
    expect(recoveryEmailsTo(leaver.email)).toHaveLength(0)
  })
})

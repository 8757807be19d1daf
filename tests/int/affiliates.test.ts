import '../support/billing-env'
import '../support/webhooks-env'

import crypto from 'node:crypto'
import http from 'node:http'

import { beforeAll, describe, expect, it } from 'vitest'

import { recordReferralVisit } from '../../src/affiliates/attribution'
import { commissionOf } from '../../src/affiliates/commissions'
import { readReferral, signReferral } from '../../src/affiliates/referral'
import { runtimeOf } from '../../src/config/runtime'
import { affiliate_commissions, user_subscriptions } from '../../src/db/schema.generated'
import { bare, executeOn, sql } from '../../src/db/transaction'
import { eraseAccount } from '../../src/privacy/erasure'
import { exportAccount } from '../../src/privacy/export'
import { createHost } from '../../src/server/host'
import { PRICES, service, smtp, standIn } from '../support/billing-env'
import { rows, seedStandInPlans } from '../support/billing'
import { api, createUser, graphql, type TestUser, usePayload } from '../support/payload'
import { receiver } from '../support/webhooks-env'

const payload = usePayload()
const affiliatesRuntime = () => runtimeOf(payload(), 'affiliates')
const processor = () => runtimeOf(payload(), 'billing').require().processor
const runJobs = async () => {
  await payload().jobs.run({ limit: 200 })
  await payload().jobs.run({ limit: 200 })
  await payload().jobs.run({ queue: 'webhooks', limit: 200 })
}
const freshEmail = (label: string) => `${label}-${crypto.randomBytes(4).toString('hex')}@example.test`
const DAY_MS = 86_400_000

let admin: TestUser

beforeAll(async () => {
  await seedStandInPlans(payload())
  admin = await createUser(payload(), 'admin')
  await payload().create({
    collection: 'webhook_endpoints',
    data: { url: `${receiver.url}/affiliates`, events: ['commission.created', 'commission.voided'], enabled: true },
    overrideAccess: true,
  })
})

/** A customer who applied and an admin approved: their code and affiliate id. */
const activeAffiliate = async (label = 'aff') => {
  const who = await createUser(payload(), 'customer')
  const code = `${label}-${crypto.randomBytes(3).toString('hex')}`
  const applied = await api<{ code: string; status: string }>('POST', '/affiliates', {
    as: who,
    body: { code, payoutEmail: who.email },
  })
  expect(applied.status, JSON.stringify(applied.body)).toBe(201)
  const [row] = await rows(payload(), 'affiliates', { code: { equals: code } })
  const approved = await api('PATCH', `/affiliates/${row!.id}`, { as: admin, body: { status: 'active' } })
  expect(approved.status, JSON.stringify(approved.body)).toBe(200)
  return { who, code, id: row!.id }
}

/** A visit through the link, as the host records it: the referral cookie's value. */
const visit = async (code: string, address = `203.0.113.${Math.floor(Math.random() * 250)}`) => {
  const setCookie = await recordReferralVisit(payload(), affiliatesRuntime(), { via: code, address })
  return setCookie ? setCookie.split(';')[0]!.split('=').slice(1).join('=') : null
}

/** A Standard checkout through the service with the referral cookie; paid on the stand-in. */
const buyWithReferral = async (cookie: string | null, buyer: { as?: TestUser; email: string }) => {
  const opened = await api<{ id: string }>('POST', '/checkout_sessions', {
    as: buyer.as ?? null,
    body: { priceId: PRICES.standard },
    headers: cookie ? { cookie: `kit_ref=${cookie}` } : {},
  })
  expect(opened.status, JSON.stringify(opened.body)).toBe(200)
  const events = await standIn.pay(opened.body.id, { email: buyer.email })
  await standIn.settled()
  await runJobs()
  return { sessionId: opened.body.id, events }
}

const commissionsOf = (affiliateId: number) =>
  rows(payload(), 'affiliate_commissions', { affiliate: { equals: affiliateId } })

const purchaseOf = async (sessionId: string) =>
  (await rows(payload(), 'one_time_purchases', { processorCheckoutSessionId: { equals: sessionId } }))[0]!

/** Time passes: the hold is over for every commission. */
const holdOver = () =>
  executeOn(
    payload(),
    undefined,
    sql`UPDATE ${affiliate_commissions} SET ${bare(affiliate_commissions.availableAt)} = now() - interval '1 minute'
        WHERE ${affiliate_commissions.status} = 'pending'`,
  )

/** The distinct events of a type receivers heard: an attempt retried keeps its event's id, and receivers deduplicate on it. */
const deliveredOfType = (type: string) => [
  ...new Map(
    receiver.received
      .filter((request) => JSON.parse(request.body).type === type)
      .map((request) => [request.id, JSON.parse(request.body) as { data: { commission: { affiliate: string } } }]),
  ).values(),
]

describe('the commission', () => {
  it('is the net sale times the rate, rounded half up, exactly for large amounts', () => {
    expect(commissionOf(14900, 3000)).toBe(4470)
    expect(commissionOf(1, 5000)).toBe(1)
    expect(commissionOf(3, 5000)).toBe(2)
    expect(commissionOf(-3, 5000)).toBe(-2)
    expect(commissionOf(9_007_199_254_740, 3333)).toBe(3_002_099_511_605)
  })
})

describe('joining', () => {
  it('a customer applies once; a taken code, a bad code and extra fields change nothing they should not', async () => {
    const who = await createUser(payload(), 'customer')
    expect((await api('POST', '/affiliates', { body: { payoutEmail: 'x@example.test' } })).status).toBe(401)
    const bad = await api<{ errors: { code: string }[] }>('POST', '/affiliates', {
      as: who,
      body: { code: 'a!', payoutEmail: who.email },
    })
    expect(bad.status).toBe(400)
    expect(bad.body.errors[0]!.code).toBe('invalid_request')
    const [first, second] = await Promise.all(
      [0, 1].map(() =>
        api<{ code: string; status: string }>('POST', '/affiliates', {
          as: who,
          body: { payoutEmail: who.email, rateBps: 10_000, status: 'active', user: admin.user.id },
        }),
      ),
    )
    expect([first!.status, second!.status].sort()).toEqual([201, 409])
    const created = first!.status === 201 ? first! : second!
    expect(created.body.status).toBe('pending')
    expect(created.body.code).toMatch(/^[a-z0-9]{10}$/)
    const [row] = await rows(payload(), 'affiliates', { user: { equals: who.user.id } })
    expect(row).toMatchObject({ rateBps: 3000, status: 'pending', user: who.user.id })

    const other = await createUser(payload(), 'customer')
    const taken = await api<{ errors: { code: string }[] }>('POST', '/affiliates', {
      as: other,
      body: { code: created.body.code.toUpperCase(), payoutEmail: other.email },
    })
    expect(taken.status).toBe(409)
    expect(taken.body.errors[0]!.code).toBe('code_taken')
    const again = await api<{ errors: { code: string }[] }>('POST', '/affiliates', {
      as: who,
      body: { code: 'another-one', payoutEmail: who.email },
    })
    expect(again.body.errors[0]!.code).toBe('already_applied')
    const viaGraphql = await graphql(
      `mutation { createAffiliate(data: { user: ${who.user.id}, code: "gql-${crypto.randomBytes(2).toString('hex')}", payoutEmail: "a@b.test", rateBps: 9000, status: active }) { id } }`,
      who,
    )
    expect(JSON.stringify(viaGraphql)).toMatch(/not allowed|Forbidden|errors/i)
    expect(await rows(payload(), 'affiliates', { rateBps: { equals: 9000 } })).toHaveLength(0)
  })

  it('with AFFILIATE_AUTO_APPROVE an application is active at once, and emailed its link', async () => {
    const who = await createUser(payload(), 'customer')
    affiliatesRuntime().settings.autoApprove = true
    try {
      const applied = await api<{ code: string; status: string }>('POST', '/affiliates', {
        as: who,
        body: { payoutEmail: who.email },
      })
      expect(applied.status).toBe(201)
      expect(applied.body.status).toBe('active')
      expect(await visit(applied.body.code)).not.toBeNull()
    } finally {
      affiliatesRuntime().settings.autoApprove = false
    }
    await runJobs()
    expect(
      smtp.messages.filter(
        (message) =>
          JSON.stringify(message.to).includes(who.email) && /You are an affiliate/.test(message.subject ?? ''),
      ),
    ).toHaveLength(1)
  })

  it('only admins approve and set rates; the approval is emailed once', async () => {
    const who = await createUser(payload(), 'customer')
    const support = await createUser(payload(), 'support')
    const applied = await api<{ code: string }>('POST', '/affiliates', { as: who, body: { payoutEmail: who.email } })
    const [row] = await rows(payload(), 'affiliates', { code: { equals: applied.body.code } })
    for (const actor of [who, support])
      expect((await api('PATCH', `/affiliates/${row!.id}`, { as: actor, body: { rateBps: 10_000 } })).status).toBe(403)
    expect((await api('PATCH', `/affiliates/${row!.id}`, { as: admin, body: { status: 'active' } })).status).toBe(200)
    expect((await api('PATCH', `/affiliates/${row!.id}`, { as: admin, body: { rateBps: 2500 } })).status).toBe(200)
    // The code and the account stay as they were, whatever an admin sends.
    await api('PATCH', `/affiliates/${row!.id}`, { as: admin, body: { code: 'hijacked', user: admin.user.id } })
    await runJobs()
    const approvals = smtp.messages.filter(
      (message) => JSON.stringify(message.to).includes(who.email) && /You are an affiliate/.test(message.subject ?? ''),
    )
    expect(approvals).toHaveLength(1)
    expect(approvals[0]!.text).toContain(`/?via=${applied.body.code}`)
    const [after] = await rows(payload(), 'affiliates', { id: { equals: row!.id } })
    expect(after).toMatchObject({ rateBps: 2500, status: 'active', code: applied.body.code, user: who.user.id })
  })

  it('an affiliate reads their own figures only; the collections are staff-only', async () => {
    const mine = await activeAffiliate('mine')
    const theirs = await activeAffiliate('theirs')
    const me = await api<{ code: string; link: string }>('GET', '/affiliates/me', { as: mine.who })
    expect(me.status).toBe(200)
    expect(me.body.code).toBe(mine.code)
    expect(me.body.link).toBe(`http://localhost:3000/?via=${mine.code}`)
    const stranger = await createUser(payload(), 'customer')
    expect((await api('GET', '/affiliates/me', { as: stranger })).status).toBe(404)
    expect((await api('GET', '/affiliates/me')).status).toBe(401)
    for (const path of [
      '/affiliates',
      `/affiliates/${theirs.id}`,
      `/affiliates?where[code][equals]=${theirs.code}`,
      '/affiliate_commissions',
      '/affiliate_payouts',
      '/affiliate_clicks',
      '/affiliate_referrals',
    ]) {
      expect((await api('GET', path, { as: mine.who })).status, path).toBe(403)
    }
    const viaGraphql = await graphql(`{ Affiliates { docs { code rateBps payoutEmail } } }`, mine.who)
    expect(viaGraphql.data?.Affiliates ?? null).toBeNull()
  })
})

describe('attribution', () => {
  it('a visit of an active code counts once per visitor and day and signs a cookie; others set nothing', async () => {
    const { id, code } = await activeAffiliate('visit')
    const cookie = await visit(code, '198.51.100.7')
    expect(cookie).not.toBeNull()
    expect(readReferral(payload().secret, cookie, 30 * DAY_MS)?.code).toBe(code)
    await visit(code.toUpperCase(), '198.51.100.7')
    await visit(code, '198.51.100.8')
    const clicks = await rows(payload(), 'affiliate_clicks', { affiliate: { equals: id } })
    expect(clicks).toHaveLength(2)
    expect(JSON.stringify(clicks)).not.toContain('198.51.100')

    const pending = await createUser(payload(), 'customer')
    const applied = await api<{ code: string }>('POST', '/affiliates', {
      as: pending,
      body: { payoutEmail: pending.email },
    })
    expect(await visit(applied.body.code)).toBeNull()
    expect(await visit('no-such-code')).toBeNull()
    expect(await visit('<script>')).toBeNull()
  })

  it('through the express host: the page is unchanged but for the cookie, and a database failure still serves it', async () => {
    const { code } = await activeAffiliate('host')
    let failing = false
    const host = createHost({
      handle: (_req, res) => {
        res.setHeader('Cache-Control', 's-maxage=60, stale-while-revalidate')
        res.setHeader('Vary', 'RSC')
        res.end('<html>the same page</html>')
      },
      checkDatabase: () => Promise.resolve(),
      maxBodyBytes: 1024,
      maxUploadBytes: 1024,
      referralVisit: async (found) => {
        if (failing) throw new Error('the database is down')
        return recordReferralVisit(payload(), affiliatesRuntime(), found)
      },
    })
    const port = await host.listen(0, '127.0.0.1')
    const get = (path: string) =>
      new Promise<{ headers: http.IncomingHttpHeaders; body: string }>((resolve, reject) => {
        http
          .get(`http://127.0.0.1:${port}${path}`, (res) => {
            let body = ''
            res.on('data', (chunk: Buffer) => (body += chunk.toString()))
            res.on('end', () => resolve({ headers: res.headers, body }))
          })
          .on('error', reject)
      })
    try {
      const plain = await get('/pricing')
      const referred = await get(`/pricing?via=${code}`)
      expect(referred.body).toBe(plain.body)
      expect(referred.headers['cache-control']).toBe(plain.headers['cache-control'])
      expect(referred.headers.vary).toBe(plain.headers.vary)
      const cookie = referred.headers['set-cookie']![0]!
      expect(cookie).toMatch(/^kit_ref=[\w-]+\.[\w-]+; Max-Age=2592000; Path=\/; HttpOnly; SameSite=Lax$/)
      expect((await get(`/api/users?via=${code}`)).headers['set-cookie']).toBeUndefined()
      expect((await get(`/admin?via=${code}`)).headers['set-cookie']).toBeUndefined()
      failing = true
      const down = await get(`/?via=${code}`)
      expect(down.body).toBe('<html>the same page</html>')
      expect(down.headers['set-cookie']).toBeUndefined()
    } finally {
      await host.close()
    }
  })

  it('checkout carries a valid referral only: forged, altered, expired, foreign, own and disabled ones add nothing', async () => {
    const { who, code, id } = await activeAffiliate('carry')
    const cookie = (await visit(code))!
    const metadataOf = async (value: string | null, as?: TestUser) => {
      const opened = await api<{ id: string }>('POST', '/checkout_sessions', {
        as: as ?? null,
        body: { priceId: PRICES.standard },
        headers: value ? { cookie: `theme=dark; kit_ref=${value}` } : {},
      })
      expect(opened.status).toBe(200)
      return (await processor().checkout.sessions.retrieve(opened.body.id)).metadata ?? {}
    }
    expect(await metadataOf(cookie)).toMatchObject({ affiliate: code, affiliate_click: expect.stringMatching(/^\d+$/) })
    const [body] = cookie.split('.')
    const forged = `${Buffer.from(JSON.stringify({ code, clickId: 1, issuedAt: Date.now() })).toString('base64url')}.${cookie.split('.')[1]}`
    const expired = signReferral(payload().secret, { code, clickId: 1, issuedAt: Date.now() - 31 * DAY_MS })
    const foreign = signReferral('another-secret-entirely-0123456789', { code, clickId: 1, issuedAt: Date.now() })
    for (const bad of [forged, `${body}.AAAA`, expired, foreign, 'garbage', body!])
      expect((await metadataOf(bad)).affiliate, bad).toBeUndefined()
    // The affiliate's own checkout.
    expect((await metadataOf(cookie, who)).affiliate).toBeUndefined()
    await api('PATCH', `/affiliates/${id}`, { as: admin, body: { status: 'disabled' } })
    expect((await metadataOf(cookie)).affiliate).toBeUndefined()
    expect(await visit(code)).toBeNull()
  })
})

describe('commissions', () => {
  it('a referred sale earns one commission, whatever its events’ order or number; receivers hear it once', async () => {
    const affiliate = await activeAffiliate('sale')
    const { code, id } = affiliate
    const buyerEmail = freshEmail('buyer')
    const { events, sessionId } = await buyWithReferral(await visit(code), { email: buyerEmail })
    // Every event again, twice at once.
    await Promise.all(events.flatMap((event) => [standIn.redeliver(event.id), standIn.redeliver(event.id)]))
    await runJobs()
    const commissions = await commissionsOf(id)
    expect(commissions).toHaveLength(1)
    const purchase = await purchaseOf(sessionId)
    expect(commissions[0]).toMatchObject({
      kind: 'commission',
      amount: 4470,
      currency: 'usd',
      status: 'pending',
      rateBps: 3000,
    })
    const held = new Date(commissions[0]!.availableAt!).getTime() - new Date(purchase.createdAt).getTime()
    expect(Math.abs(held - 30 * DAY_MS)).toBeLessThan(60_000)
    expect(await rows(payload(), 'affiliate_referrals', { affiliate: { equals: id } })).toHaveLength(1)
    expect(
      deliveredOfType('commission.created').filter((event) => event.data.commission.affiliate === code),
    ).toHaveLength(1)
    const me = await api<{ sales: number; clicks: number; commissions: unknown[] }>('GET', '/affiliates/me', {
      as: affiliate.who,
    })
    expect(me.body).toMatchObject({
      sales: 1,
      clicks: 1,
      commissions: [{ currency: 'usd', pending: 4470, available: 0, paid: 0 }],
    })
  })

  it('the payment’s events before the checkout’s (the referral recorded last) still earn one commission', async () => {
    const { code, id } = await activeAffiliate('order')
    const opened = await api<{ id: string }>('POST', '/checkout_sessions', {
      body: { priceId: PRICES.standard },
      headers: { cookie: `kit_ref=${await visit(code, '192.0.2.50')}` },
    })
    standIn.setWebhookUrl(null)
    let events: Awaited<ReturnType<typeof standIn.pay>>
    try {
      events = await standIn.pay(opened.body.id, { email: freshEmail('reversed') })
      await standIn.settled()
    } finally {
      standIn.setWebhookUrl(`${service.url}/api/webhooks/processor`)
    }
    const checkoutLast = [
      ...events.filter((event) => !event.type.startsWith('checkout.')),
      ...events.filter((event) => event.type.startsWith('checkout.')),
    ]
    for (const event of checkoutLast) expect((await standIn.redeliver(event.id)).status).toBe(200)
    await runJobs()
    expect(await commissionsOf(id)).toMatchObject([{ amount: 4470, status: 'pending' }])
  })

  it('is computed on the sale net of tax', async () => {
    const { code, id } = await activeAffiliate('tax')
    const billing = runtimeOf(payload(), 'billing').require()
    billing.taxes.automaticTax = true
    try {
      const opened = await api<{ id: string }>('POST', '/checkout_sessions', {
        body: { priceId: PRICES.standard },
        headers: { cookie: `kit_ref=${await visit(code, '192.0.2.40')}` },
      })
      await standIn.pay(opened.body.id, { email: freshEmail('taxed'), country: 'DE' })
      await standIn.settled()
      await runJobs()
    } finally {
      billing.taxes.automaticTax = false
    }
    // $149.00 plus $28.31 of German VAT: 30% of $149.00.
    expect((await commissionsOf(id))[0]).toMatchObject({ basis: 14900, amount: 4470 })
  })

  it('the affiliate’s own purchase (their address in any case) and a disabled affiliate’s sale earn nothing', async () => {
    const { who, code, id } = await activeAffiliate('own')
    await buyWithReferral(await visit(code), { email: who.email.toUpperCase() })
    expect(await commissionsOf(id)).toHaveLength(0)
    const cookie = await visit(code)
    await api('PATCH', `/affiliates/${id}`, { as: admin, body: { status: 'disabled' } })
    // The cookie was set while active; the checkout no longer carries it, and nothing is earned.
    await buyWithReferral(cookie, { email: freshEmail('late') })
    expect(await commissionsOf(id)).toHaveLength(0)
  })

  it('a refund before payout scales the commission, a full one voids it (once, heard once)', async () => {
    const { code, id } = await activeAffiliate('refund')
    const { sessionId } = await buyWithReferral(await visit(code), { email: freshEmail('refunded') })
    const purchase = await purchaseOf(sessionId)
    await standIn.refund(purchase.processorPaymentIntentId, 7450)
    await standIn.settled()
    await runJobs()
    expect((await commissionsOf(id))[0]).toMatchObject({ amount: 2235, status: 'pending' })
    await standIn.refund(purchase.processorPaymentIntentId)
    await standIn.settled()
    await runJobs()
    expect((await commissionsOf(id))[0]).toMatchObject({ amount: 0, status: 'void' })
    expect(
      deliveredOfType('commission.voided').filter((event) => event.data.commission.affiliate === code),
    ).toHaveLength(1)
  })

  it('a dispute holds the commission; won releases it, lost voids it', async () => {
    const { code, id } = await activeAffiliate('dispute')
    const won = await purchaseOf(
      (await buyWithReferral(await visit(code, '192.0.2.1'), { email: freshEmail('won') })).sessionId,
    )
    const lost = await purchaseOf(
      (await buyWithReferral(await visit(code, '192.0.2.2'), { email: freshEmail('lost') })).sessionId,
    )
    const disputeOf = async (purchase: typeof won) => {
      const events = await standIn.openDispute(purchase.processorChargeId!)
      await standIn.settled()
      await runJobs()
      return events.find((event) => event.type === 'charge.dispute.created')!.data.object.id
    }
    const wonDispute = await disputeOf(won)
    const lostDispute = await disputeOf(lost)
    const byPayment = async () => {
      const commissions = await commissionsOf(id)
      const payments = await rows(payload(), 'payment_history', {
        processorPaymentId: { in: [won.processorPaymentIntentId, lost.processorPaymentIntentId] },
      })
      const of = (intent: string) =>
        commissions.find((row) => row.payment === payments.find((p) => p.processorPaymentId === intent)!.id)!
      return { won: of(won.processorPaymentIntentId), lost: of(lost.processorPaymentIntentId) }
    }
    expect((await byPayment()).won.status).toBe('held')
    await standIn.closeDispute(wonDispute, 'won')
    await standIn.closeDispute(lostDispute, 'lost')
    await standIn.settled()
    await runJobs()
    const after = await byPayment()
    expect(after.won).toMatchObject({ status: 'pending', amount: 4470 })
    expect(after.lost).toMatchObject({ status: 'void', amount: 0 })
  })
})

describe('payouts', () => {
  it('admins record one payout of what is available, even two at once; a refund afterwards is clawed back next time', async () => {
    const { code, id } = await activeAffiliate('payout')
    const support = await createUser(payload(), 'support')
    const { sessionId } = await buyWithReferral(await visit(code, '192.0.2.10'), { email: freshEmail('paid') })
    const nothing = await api<{ errors: { code: string }[] }>('POST', `/staff/affiliates/${id}/payouts`, {
      as: admin,
      body: { reason: 'monthly payout' },
    })
    expect(nothing.status).toBe(409)
    expect(nothing.body.errors[0]!.code).toBe('nothing_available')
    await holdOver()
    expect(
      (await api('POST', `/staff/affiliates/${id}/payouts`, { as: support, body: { reason: 'monthly' } })).status,
    ).toBe(403)
    const secondAdmin = await createUser(payload(), 'admin')
    const answers = await Promise.all(
      [admin, secondAdmin].map((who) =>
        api<{ payout: { amount: number; currency: string; commissions: number } }>(
          'POST',
          `/staff/affiliates/${id}/payouts`,
          { as: who, body: { reason: 'monthly payout' } },
        ),
      ),
    )
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 409])
    const paid = answers.find((answer) => answer.status === 201)!.body.payout
    expect(paid).toMatchObject({ amount: 4470, currency: 'usd', commissions: 1 })
    expect(await rows(payload(), 'affiliate_payouts', { affiliate: { equals: id } })).toHaveLength(1)

    // Refunded in full after the payout: a negative adjustment, netted against the next sale.
    const purchase = await purchaseOf(sessionId)
    await standIn.refund(purchase.processorPaymentIntentId)
    await standIn.settled()
    await runJobs()
    const adjustment = (await commissionsOf(id)).find((row) => row.kind === 'adjustment')
    expect(adjustment).toMatchObject({ amount: -4470, status: 'pending' })
    await buyWithReferral(await visit(code, '192.0.2.11'), { email: freshEmail('next') })
    await buyWithReferral(await visit(code, '192.0.2.12'), { email: freshEmail('next') })
    await holdOver()
    const next = await api<{ payout: { amount: number; commissions: number } }>(
      'POST',
      `/staff/affiliates/${id}/payouts`,
      { as: admin, body: { reason: 'next month' } },
    )
    expect(next.status).toBe(201)
    expect(next.body.payout).toMatchObject({ amount: 4470, commissions: 3 })

    const csv = await api<string>('GET', '/staff/affiliates/payouts.csv', { as: support })
    expect(csv.status).toBe(200)
    expect(csv.body.split('\r\n')[0]).toBe(
      'payout_id,affiliate_code,payout_email,currency,amount,commissions,created_at',
    )
    expect(csv.body).toMatch(new RegExp(`\\n\\d+,${code},[^,]+,usd,4470,1,`))
    expect(csv.body).toMatch(new RegExp(`\\n\\d+,${code},[^,]+,usd,4470,3,`))
    const customer = await createUser(payload(), 'customer')
    expect((await api('GET', '/staff/affiliates/payouts.csv', { as: customer })).status).toBe(403)
  })
})

describe('subscriptions', () => {
  it('invoices earn within the first months of the subscription, not after', async () => {
    const { code, id } = await activeAffiliate('sub')
    const opened = await api<{ id: string }>('POST', '/checkout_sessions', {
      body: { priceId: PRICES.proMonthly },
      headers: { cookie: `kit_ref=${await visit(code, '192.0.2.20')}` },
    })
    await standIn.pay(opened.body.id, { email: freshEmail('subscriber') })
    await standIn.settled()
    await runJobs()
    expect(await commissionsOf(id)).toHaveLength(1)
    const session = await processor().checkout.sessions.retrieve(opened.body.id)
    const subscriptionId = typeof session.subscription === 'string' ? session.subscription : session.subscription!.id
    await standIn.renewSubscription(subscriptionId)
    await standIn.settled()
    await runJobs()
    expect(await commissionsOf(id)).toHaveLength(2)
    // Thirteen months later.
    await executeOn(
      payload(),
      undefined,
      sql`UPDATE ${user_subscriptions} SET ${bare(user_subscriptions.createdAt)} = now() - interval '13 months'
          WHERE ${user_subscriptions.processorSubscriptionId} = ${subscriptionId}`,
    )
    await standIn.renewSubscription(subscriptionId)
    await standIn.settled()
    await runJobs()
    expect(await commissionsOf(id)).toHaveLength(2)
  })
})

describe('privacy', () => {
  it('the export has the affiliate; erasure disables it and forgets the payout email, keeping the books', async () => {
    const { who, code, id } = await activeAffiliate('erased')
    await buyWithReferral(await visit(code, '192.0.2.30'), { email: freshEmail('kept') })
    const exported = await exportAccount(payload(), who.user)
    expect(exported.affiliate).toMatchObject({ code, status: 'active', payoutEmail: who.email })
    const deletion = await api('POST', '/account/deletion', { as: who, body: { password: who.password } })
    expect(deletion.status, JSON.stringify(deletion.body)).toBe(202)
    const later = new Date(Date.now() + 60 * DAY_MS)
    expect(await eraseAccount(payload(), who.user.id, runtimeOf(payload(), 'privacy').erasure, later)).toBe('complete')
    const [row] = await rows(payload(), 'affiliates', { id: { equals: id } })
    expect(row!.status).toBe('disabled')
    expect(row!.payoutEmail).not.toBe(who.email)
    expect(await commissionsOf(id)).toHaveLength(1)
  })
})

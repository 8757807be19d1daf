import './../support/billing-env'

import crypto from 'node:crypto'

import { beforeAll, describe, expect, it } from 'vitest'

import {
  csvCell,
  insightsCsv,
  loadInsights,
  MAX_INSIGHT_DAYS,
  parseInsightRange,
  rangeEndingToday,
} from '../../src/staff/insights'
import type { Insights } from '../../src/staff/insights-types'
import { PRICES, standIn } from '../support/billing-env'
import { buy, rows, seedStandInPlans } from '../support/billing'
import { grantLicense } from '../support/licenses'
import { api, createUser, type TestUser, usePayload } from '../support/payload'
import { recordOwnRun } from '../support/queries'
import { createRelease } from '../support/releases'

const payload = usePayload()

let admin: TestUser
let support: TestUser
let customer: TestUser

beforeAll(async () => {
  await seedStandInPlans(payload())
  ;[admin, support, customer] = await Promise.all([
    createUser(payload(), 'admin'),
    createUser(payload(), 'support'),
    createUser(payload(), 'customer'),
  ])
})

const hex = () => crypto.randomBytes(5).toString('hex')
const at = (day: string, time = '12:00') => `${day}T${time}:00.000Z`

const payment = (data: {
  amount: number
  currency: string
  paidAt: string
  status?: 'succeeded' | 'failed'
  processorInvoiceId?: string
  subscription?: number
  taxAmount?: number
}) =>
  payload().create({
    collection: 'payment_history',
    data: { processorPaymentId: `pi_ins_${hex()}`, paymentType: 'one_time', status: 'succeeded', ...data },
  })

const event = (
  name: string,
  occurredAt: string,
  properties: Record<string, unknown> = {},
  sourceEventId = `src_${hex()}`,
) => payload().create({ collection: 'analytics_events', data: { name, occurredAt, properties, sourceEventId } })

/** A refund event as charge-refunded.ts records it: the charge's cumulative refunded amount, keyed by charge and amount. */
const refundEvent = (
  charge: string,
  cumulative: number,
  occurredAt: string,
  properties: Record<string, unknown> = {},
) =>
  event(
    cumulative >= 10_000 ? 'refund_full' : 'refund_partial',
    occurredAt,
    { amountRefunded: cumulative, ...properties },
    `${charge}:${cumulative}`,
  )

const planId = async (slug: string) =>
  (await payload().find({ collection: 'plans', where: { slug: { equals: slug } }, limit: 1, depth: 0 })).docs[0]!

const setTimes = (table: string, id: number, columns: Record<string, string>) => {
  const names = Object.keys(columns)
  return payload().db.pool.query(
    `UPDATE ${table} SET ${names.map((name, index) => `${name} = $${index + 1}`).join(', ')} WHERE id = $${names.length + 1}`,
    [...Object.values(columns), id],
  )
}

type CsvRow = Record<string, string>
const csv = async (series: string, from: string, to: string, who: TestUser = admin) => {
  const answer = await api<string>('GET', `/staff/insights.csv?series=${series}&from=${from}&to=${to}`, { as: who })
  expect(answer.status).toBe(200)
  const [header, ...lines] = answer.body.trimEnd().split('\r\n')
  const columns = header!.split(',')
  return {
    answer,
    columns,
    rows: lines.map((line): CsvRow => Object.fromEntries(line.split(',').map((cell, index) => [columns[index], cell]))),
  }
}
const sum = (list: CsvRow[], column: string) => list.reduce((total, row) => total + Number(row[column]), 0)

describe('revenue and refunds', () => {
  const range = { from: '2024-03-01', to: '2024-03-07' }
  let insights: Insights

  beforeAll(async () => {
    await payment({ amount: 10_000, currency: 'usd', paidAt: at('2024-03-02', '09:00') })
    await payment({ amount: 5_000, currency: 'USD', paidAt: at('2024-03-02', '23:59') })
    await payment({ amount: 9_999, currency: 'usd', paidAt: at('2024-03-02'), status: 'failed' })
    await payment({ amount: 2_000, currency: 'usd', paidAt: at('2024-02-29') })
    await payment({ amount: 7_000, currency: 'eur', paidAt: at('2024-03-03'), processorInvoiceId: 'in_ins_eur' })
    // A charge refunded in two steps: 3000 on the day of its payment, the rest (7000) three days later.
    await refundEvent('ch_ins_a', 3_000, at('2024-03-02', '15:00'), { currency: 'usd' })
    await refundEvent('ch_ins_a', 10_000, at('2024-03-05'), { currency: 'usd' })
    // A charge with a refund before the range: only the increase on 03-01 (3000) counts in it.
    await refundEvent('ch_ins_b', 1_000, at('2024-02-28'), { currency: 'usd' })
    await refundEvent('ch_ins_b', 4_000, at('2024-03-01'), { currency: 'usd' })
    // An event recorded before events carried a currency: the invoice's payment gives it.
    await refundEvent('ch_ins_c', 1_000, at('2024-03-04'), { invoiceId: 'in_ins_eur' })
    // A dispute opened on 03-03 and lost on 03-06 counts once, on 03-03; one first seen closed counts on its day.
    await event(
      'dispute_opened',
      at('2024-03-03'),
      { disputeId: 'dp_ins_1', amount: 5_000, currency: 'usd' },
      'dp_ins_1',
    )
    await event('dispute_lost', at('2024-03-06'), { disputeId: 'dp_ins_1', amount: 5_000, currency: 'usd' }, 'dp_ins_1')
    await event(
      'dispute_won',
      at('2024-03-06'),
      { disputeId: 'dp_ins_2', amount: 2_000, invoiceId: 'in_ins_eur' },
      'dp_ins_2',
    )
    insights = await loadInsights(payload(), range)
  })

  it('revenue per day and currency is what was paid less what was refunded that day; a later refund counts on its own day', () => {
    expect(insights.days).toEqual([
      '2024-03-01',
      '2024-03-02',
      '2024-03-03',
      '2024-03-04',
      '2024-03-05',
      '2024-03-06',
      '2024-03-07',
    ])
    expect(insights.revenue).toEqual([
      { day: '2024-03-01', currency: 'usd', paid: 0, refunded: 3_000, net: -3_000 },
      { day: '2024-03-02', currency: 'usd', paid: 15_000, refunded: 3_000, net: 12_000 },
      { day: '2024-03-03', currency: 'eur', paid: 7_000, refunded: 0, net: 7_000 },
      { day: '2024-03-04', currency: 'eur', paid: 0, refunded: 1_000, net: -1_000 },
      { day: '2024-03-05', currency: 'usd', paid: 0, refunded: 7_000, net: -7_000 },
    ])
  })

  it('refunds and disputes opened per day and currency: how many and how much', () => {
    expect(insights.refunds).toEqual([
      { day: '2024-03-01', currency: 'usd', refunds: 1, refunded: 3_000, disputes: 0, disputed: 0 },
      { day: '2024-03-02', currency: 'usd', refunds: 1, refunded: 3_000, disputes: 0, disputed: 0 },
      { day: '2024-03-03', currency: 'usd', refunds: 0, refunded: 0, disputes: 1, disputed: 5_000 },
      { day: '2024-03-04', currency: 'eur', refunds: 1, refunded: 1_000, disputes: 0, disputed: 0 },
      { day: '2024-03-05', currency: 'usd', refunds: 1, refunded: 7_000, disputes: 0, disputed: 0 },
      { day: '2024-03-06', currency: 'eur', refunds: 0, refunded: 0, disputes: 1, disputed: 2_000 },
    ])
  })

  it('the revenue CSV has every day for each currency and adds up to the same numbers', async () => {
    const { answer, columns, rows: lines } = await csv('revenue', range.from, range.to)
    expect(answer.headers.get('content-type')).toBe('text/csv; charset=utf-8')
    expect(answer.headers.get('content-disposition')).toBe(
      'attachment; filename="insights-revenue-2024-03-01-2024-03-07.csv"',
    )
    expect(answer.headers.get('cache-control')).toBe('no-store')
    expect(columns).toEqual(['day', 'currency', 'paid', 'refunded', 'net'])
    expect(lines).toHaveLength(7 * 2)
    for (const currency of ['eur', 'usd']) {
      const mine = lines.filter((row) => row.currency === currency)
      expect(mine.map((row) => row.day)).toEqual(insights.days)
      for (const row of mine) expect(Number(row.net)).toBe(Number(row.paid) - Number(row.refunded))
    }
    const usd = lines.filter((row) => row.currency === 'usd')
    expect({ paid: sum(usd, 'paid'), refunded: sum(usd, 'refunded'), net: sum(usd, 'net') }).toEqual({
      paid: 15_000,
      refunded: 13_000,
      net: 2_000,
    })
    const eur = lines.filter((row) => row.currency === 'eur')
    expect({ paid: sum(eur, 'paid'), refunded: sum(eur, 'refunded'), net: sum(eur, 'net') }).toEqual({
      paid: 7_000,
      refunded: 1_000,
      net: 6_000,
    })
    expect(lines.find((row) => row.day === '2024-03-07' && row.currency === 'usd')).toEqual({
      day: '2024-03-07',
      currency: 'usd',
      paid: '0',
      refunded: '0',
      net: '0',
    })
  })

  it('the refunds CSV adds up to the same numbers', async () => {
    const { columns, rows: lines } = await csv('refunds', range.from, range.to, support)
    expect(columns).toEqual(['day', 'currency', 'refunds', 'refunded', 'disputes', 'disputed'])
    expect(lines).toHaveLength(14)
    const usd = lines.filter((row) => row.currency === 'usd')
    expect([sum(usd, 'refunds'), sum(usd, 'refunded'), sum(usd, 'disputes'), sum(usd, 'disputed')]).toEqual([
      3, 13_000, 1, 5_000,
    ])
  })
})

describe('licenses, subscriptions, funnel and downloads', () => {
  it('new licenses per day and plan, with the plan name a seller reads', async () => {
    const owner = await createUser(payload(), 'customer')
    const grant = async (plan: 'standard' | 'pro', day: string) => {
      const license = await grantLicense(payload(), owner, plan, 'active')
      await setTimes('licenses', license.id, { granted_at: at(day), created_at: at(day) })
    }
    await grant('standard', '2024-07-01')
    await grant('standard', '2024-07-01')
    await grant('pro', '2024-07-02')
    const insights = await loadInsights(payload(), { from: '2024-07-01', to: '2024-07-03' })
    const [standard, pro] = [await planId('standard'), await planId('pro')]
    expect(insights.licenses).toEqual([
      { day: '2024-07-01', plan: 'standard', planName: standard.name, created: 2 },
      { day: '2024-07-02', plan: 'pro', planName: pro.name, created: 1 },
    ])
    const { columns, rows: lines } = await csv('licenses', '2024-07-01', '2024-07-03')
    expect(columns).toEqual(['day', 'plan', 'planName', 'created'])
    expect(lines).toHaveLength(6)
    expect(lines.filter((row) => row.plan === 'pro').map((row) => [row.day, row.planName, row.created])).toEqual([
      ['2024-07-01', pro.name, '0'],
      ['2024-07-02', pro.name, '1'],
      ['2024-07-03', pro.name, '0'],
    ])
  })

  it('active subscriptions and MRR per day: a yearly one counts a twelfth, a canceled one stops when it ends', async () => {
    const pro = await planId('pro')
    const subscription = async (data: {
      status: 'active' | 'canceled' | 'incomplete'
      billingCycle: 'monthly' | 'yearly'
      created: string
      canceledAt?: string
    }) => {
      const row = await payload().create({
        collection: 'user_subscriptions',
        data: {
          processorSubscriptionId: `sub_ins_${hex()}`,
          plan: pro.id,
          status: data.status,
          billingCycle: data.billingCycle,
          canceledAt: data.canceledAt ?? null,
        },
      })
      await setTimes('user_subscriptions', row.id, { created_at: data.created })
      return row
    }
    const monthly = await subscription({
      status: 'active',
      billingCycle: 'monthly',
      created: at('2024-05-02', '08:00'),
    })
    await payment({
      amount: 3_500,
      taxAmount: 600,
      currency: 'usd',
      paidAt: at('2024-05-02', '08:01'),
      subscription: monthly.id,
    })
    const yearly = await subscription({ status: 'active', billingCycle: 'yearly', created: at('2024-05-03') })
    await payment({ amount: 29_900, currency: 'usd', paidAt: at('2024-05-03'), subscription: yearly.id })
    const canceled = await subscription({
      status: 'canceled',
      billingCycle: 'monthly',
      created: at('2024-05-02'),
      canceledAt: at('2024-05-05', '10:00'),
    })
    await payment({ amount: 1_900, currency: 'eur', paidAt: at('2024-05-02'), subscription: canceled.id })
    // No payment recorded: the plan's catalogue price (whole dollars) in cents.
    await subscription({ status: 'active', billingCycle: 'monthly', created: at('2024-04-20') })
    await subscription({ status: 'incomplete', billingCycle: 'monthly', created: at('2024-05-02') })

    const insights = await loadInsights(payload(), { from: '2024-05-01', to: '2024-05-06' })
    const catalogue = pro.monthlyPrice * 100
    const twelfth = Math.round(29_900 / 12)
    expect(twelfth).toBe(2_492)
    expect(insights.subscriptions).toEqual([
      { day: '2024-05-01', currency: 'usd', active: 1, mrr: catalogue },
      { day: '2024-05-02', currency: 'eur', active: 1, mrr: 1_900 },
      { day: '2024-05-02', currency: 'usd', active: 2, mrr: catalogue + 2_900 },
      { day: '2024-05-03', currency: 'eur', active: 1, mrr: 1_900 },
      { day: '2024-05-03', currency: 'usd', active: 3, mrr: catalogue + 2_900 + twelfth },
      { day: '2024-05-04', currency: 'eur', active: 1, mrr: 1_900 },
      { day: '2024-05-04', currency: 'usd', active: 3, mrr: catalogue + 2_900 + twelfth },
      { day: '2024-05-05', currency: 'usd', active: 3, mrr: catalogue + 2_900 + twelfth },
      { day: '2024-05-06', currency: 'usd', active: 3, mrr: catalogue + 2_900 + twelfth },
    ])
    const { columns, rows: lines } = await csv('subscriptions', '2024-05-01', '2024-05-06')
    expect(columns).toEqual(['day', 'currency', 'active', 'mrr'])
    expect(lines.filter((row) => row.currency === 'eur').map((row) => row.active)).toEqual([
      '0',
      '1',
      '1',
      '1',
      '0',
      '0',
    ])
  })

  it('the funnel per day: pricing viewed, checkout started, paid (purchases and non-trial subscriptions)', async () => {
    for (const time of ['01:00', '02:00', '23:00']) await event('pricing_viewed', at('2024-06-01', time))
    await event('pricing_viewed', at('2024-06-02'))
    await event('checkout_started', at('2024-06-01'))
    await event('checkout_started', at('2024-06-01'))
    await event('purchase_completed', at('2024-06-01'))
    await event('subscription_started', at('2024-06-02'), { status: 'active' })
    await event('subscription_started', at('2024-06-02'), { status: 'trialing' })
    await event('license_granted', at('2024-06-02'))
    const insights = await loadInsights(payload(), { from: '2024-06-01', to: '2024-06-03' })
    expect(insights.funnel).toEqual([
      { day: '2024-06-01', pricingViewed: 3, checkoutStarted: 2, paid: 1 },
      { day: '2024-06-02', pricingViewed: 1, checkoutStarted: 0, paid: 1 },
    ])
    const { columns, rows: lines } = await csv('funnel', '2024-06-01', '2024-06-03')
    expect(columns).toEqual(['day', 'pricingViewed', 'checkoutStarted', 'paid'])
    expect(lines).toEqual([
      { day: '2024-06-01', pricingViewed: '3', checkoutStarted: '2', paid: '1' },
      { day: '2024-06-02', pricingViewed: '1', checkoutStarted: '0', paid: '1' },
      { day: '2024-06-03', pricingViewed: '0', checkoutStarted: '0', paid: '0' },
    ])
  })

  it('downloads per day and release version', async () => {
    const owner = await createUser(payload(), 'customer')
    const license = await grantLicense(payload(), owner, 'standard', 'active')
    const [one, two] = [
      (await createRelease(payload(), '7.0.0')).release,
      (await createRelease(payload(), '7.1.0')).release,
    ]
    const download = async (release: typeof one, day: string) => {
      const row = await payload().create({
        collection: 'downloads',
        data: { user: owner.user.id, license: license.id, release: release.id, version: release.version },
      })
      await setTimes('downloads', row.id, { created_at: at(day) })
    }
    await download(one, '2024-08-01')
    await download(one, '2024-08-01')
    await download(two, '2024-08-02')
    const insights = await loadInsights(payload(), { from: '2024-08-01', to: '2024-08-02' })
    expect(insights.downloads).toEqual([
      { day: '2024-08-01', release: '7.0.0', downloads: 2 },
      { day: '2024-08-02', release: '7.1.0', downloads: 1 },
    ])
    const { rows: lines } = await csv('downloads', '2024-08-01', '2024-08-02')
    expect(lines).toEqual([
      { day: '2024-08-01', release: '7.0.0', downloads: '2' },
      { day: '2024-08-01', release: '7.1.0', downloads: '0' },
      { day: '2024-08-02', release: '7.0.0', downloads: '0' },
      { day: '2024-08-02', release: '7.1.0', downloads: '1' },
    ])
  })

  it('a series with nothing in the range is its header alone; the funnel still has every day', async () => {
    expect((await csv('revenue', '2020-01-01', '2020-01-03')).rows).toEqual([])
    expect((await csv('funnel', '2020-01-01', '2020-01-03')).rows).toHaveLength(3)
  })
})

describe('the webhook flow', () => {
  it('a refund and a dispute through the processor carry their currency and count on their day', async () => {
    const buyer = await createUser(payload(), 'customer')
    const { events } = await buy(PRICES.ultimate, { as: buyer })
    const charge = events.find((candidate) => candidate.type === 'charge.succeeded')!.data.object
    await standIn.refund(charge.id, 1_000)
    await standIn.openDispute(charge.id)
    await standIn.settled()
    const analytics = await rows(payload(), 'analytics_events', { user: { equals: buyer.user.id } })
    const refund = analytics.find((row) => row.name === 'refund_partial')!
    expect(refund.properties).toMatchObject({ amountRefunded: 1_000, currency: charge.currency })
    expect(analytics.find((row) => row.name === 'dispute_opened')!.properties).toMatchObject({
      currency: charge.currency,
      chargeId: charge.id,
    })

    const [paid] = await rows(payload(), 'payment_history', { user: { equals: buyer.user.id } })
    const day = paid!.paidAt!.slice(0, 10)
    const insights = await loadInsights(payload(), { from: day, to: refund.occurredAt.slice(0, 10) })
    const revenue = insights.revenue.filter((row) => row.currency === charge.currency)
    expect(revenue.reduce((total, row) => total + row.paid, 0)).toBe(paid!.amount)
    expect(revenue.reduce((total, row) => total + row.refunded, 0)).toBe(1_000)
    const refunds = insights.refunds.filter((row) => row.currency === charge.currency)
    expect(refunds.reduce((total, row) => total + row.refunds, 0)).toBe(1)
    expect(refunds.reduce((total, row) => total + row.disputed, 0)).toBe(paid!.amount - 1_000)
    expect(insights.funnel.reduce((total, row) => total + row.paid, 0)).toBe(1)
  })
})

describe('GET /api/staff/insights.csv: who and what', () => {
  const path = (query: string) => `/staff/insights.csv?${query}`
  const good = 'series=revenue&from=2024-01-01&to=2024-01-31'

  it('anonymous: 401; a customer, with a session or an API key: 403 in the error shape', async () => {
    const anonymous = await api('GET', path(good))
    expect(anonymous.status).toBe(401)
    expect(anonymous.body.errors[0].code).toBe('unauthenticated')
    const signedIn = await api('GET', path(good), { as: customer })
    expect(signedIn.status).toBe(403)
    expect(signedIn.body.errors[0]).toMatchObject({ code: 'forbidden', message: expect.any(String) })

    const holder = await createUser(payload(), 'customer')
    await grantLicense(payload(), holder, 'ultimate', 'active')
    const created = await api<{ key: string }>('POST', '/account/api-keys', { as: holder, body: { name: 'CI' } })
    expect(created.status).toBe(201)
    const withKey = await api('GET', path(good), { headers: { authorization: `Bearer ${created.body.key}` } })
    expect(withKey.status).toBe(403)
    expect(withKey.body.errors[0].code).toEqual(expect.any(String))
    expect(withKey.headers.get('content-type')).toMatch(/application\/json/)
  })

  it('400 invalid_request for an unknown series, a malformed or impossible day, a reversed or too long range', async () => {
    for (const query of [
      'series=profit&from=2024-01-01&to=2024-01-31',
      'from=2024-01-01&to=2024-01-31',
      'series=revenue&from=2024-1-01&to=2024-01-31',
      'series=revenue&from=2024-01-01&to=2024-02-30',
      'series=revenue&from=2024-01-01',
      'series=revenue&series=funnel&from=2024-01-01&to=2024-01-31',
      'series=revenue&from=2024-02-01&to=2024-01-31',
      'series=revenue&from=2023-01-01&to=2024-01-02',
    ]) {
      const answer = await api('GET', path(query), { as: admin })
      expect(answer.status, query).toBe(400)
      expect(answer.body.errors[0].code, query).toBe('invalid_request')
    }
    // The longest range: 366 days.
    expect((await api('GET', path('series=funnel&from=2024-01-01&to=2024-12-31'), { as: support })).status).toBe(200)
  })

  it('a plan name or version that starts like a formula is written as text', () => {
    expect(csvCell('=HYPERLINK("http://x")')).toBe(`"'=HYPERLINK(""http://x"")"`)
    for (const start of ['+', '-', '@']) expect(csvCell(`${start}1`)).toBe(`'${start}1`)
    expect(csvCell(-500)).toBe('-500')
    expect(csvCell('Pro, yearly')).toBe('"Pro, yearly"')
    const insights: Insights = {
      from: '2024-01-01',
      to: '2024-01-01',
      days: ['2024-01-01'],
      revenue: [],
      licenses: [{ day: '2024-01-01', plan: 'pro', planName: '=1+1', created: 1 }],
      subscriptions: [],
      refunds: [],
      funnel: [],
      downloads: [],
      recovery: [],
    }
    expect(insightsCsv(insights, 'licenses')).toBe("day,plan,planName,created\r\n2024-01-01,pro,'=1+1,1\r\n")
  })

  it('ranges: the last N days end today (UTC); the maximum is documented', () => {
    expect(rangeEndingToday(7, new Date('2024-03-10T23:30:00Z'))).toEqual({ from: '2024-03-04', to: '2024-03-10' })
    expect(rangeEndingToday(30, new Date('2024-03-01T00:00:00Z'))).toEqual({ from: '2024-02-01', to: '2024-03-01' })
    expect(MAX_INSIGHT_DAYS).toBe(366)
    expect(() => parseInsightRange('2024-01-01', '2024-12-31')).not.toThrow()
    expect(() => parseInsightRange('2023-12-31', '2024-12-31')).toThrow(/366/)
  })
})

describe('statements', () => {
  const range = { from: '2024-09-01', to: '2024-09-30' }

  it('one load sends the same fixed number of statements with 1 row of each kind and with 50', async () => {
    const owner = await createUser(payload(), 'customer')
    const license = await grantLicense(payload(), owner, 'standard', 'active')
    const { release } = await createRelease(payload(), '8.0.0')
    const pool = payload().db.pool
    const pro = await planId('pro')
    const add = async (count: number) => {
      const offset = (await pool.query('SELECT count(*) AS n FROM payment_history')).rows[0].n
      const args = [count, `${offset}`]
      await pool.query(
        `INSERT INTO payment_history (processor_payment_id, amount, currency, payment_type, status, paid_at, updated_at, created_at)
         SELECT 'pi_n_' || $2::text || '_' || g, 100, 'usd', 'one_time', 'succeeded', '2024-09-01'::timestamptz + g * interval '11 hours', now(), now() FROM generate_series(1, $1::int) g`,
        args,
      )
      await pool.query(
        `INSERT INTO analytics_events (name, properties, occurred_at, source_event_id, updated_at, created_at)
         SELECT n, jsonb_build_object('amountRefunded', 10, 'currency', 'usd', 'amount', 10, 'disputeId', 'dp_n_' || $2::text || '_' || g),
           '2024-09-01'::timestamptz + g * interval '11 hours', CASE WHEN n LIKE 'refund%' THEN 'ch_n_' || $2 || '_' || g || ':10' ELSE 'ev_n_' || $2 || '_' || g END, now(), now()
         FROM generate_series(1, $1::int) g, unnest(ARRAY['refund_partial', 'dispute_opened', 'pricing_viewed', 'checkout_started', 'purchase_completed']) n`,
        args,
      )
      await pool.query(
        `INSERT INTO licenses (key, user_id, plan_id, source, status, granted_at, updated_at, created_at)
         SELECT 'KEY-N-' || $2::text || '-' || g, $3, $4, 'manual', 'active', '2024-09-01'::timestamptz + g * interval '11 hours', now(), now() FROM generate_series(1, $1::int) g`,
        [...args, owner.user.id, pro.id],
      )
      await pool.query(
        `INSERT INTO downloads (user_id, license_id, release_id, version, updated_at, created_at)
         SELECT $2, $3, $4, '8.0.0', now(), '2024-09-01'::timestamptz + g * interval '11 hours' FROM generate_series(1, $1::int) g`,
        [count, owner.user.id, license.id, release.id],
      )
      await pool.query(
        `INSERT INTO user_subscriptions (processor_subscription_id, plan_id, status, billing_cycle, updated_at, created_at)
         SELECT 'sub_n_' || $2::text || '_' || g, $3, 'active', 'monthly', now(), '2024-09-01'::timestamptz + g * interval '11 hours' FROM generate_series(1, $1::int) g`,
        [...args, pro.id],
      )
    }
    const measure = async () => {
      let insights: Insights | undefined
      const { statements } = await recordOwnRun(payload(), async () => {
        insights = await loadInsights(payload(), range)
      })
      return { statements: statements.length, insights: insights! }
    }
    await add(1)
    const one = await measure()
    await add(49)
    const fifty = await measure()
    expect(one.statements).toBe(7)
    expect(fifty.statements).toBe(one.statements)
    const total = (insights: Insights) => ({
      paid: insights.revenue.reduce((sum, row) => sum + row.paid, 0),
      refunds: insights.refunds.reduce((sum, row) => sum + row.refunds, 0),
      disputes: insights.refunds.reduce((sum, row) => sum + row.disputes, 0),
      licenses: insights.licenses.reduce((sum, row) => sum + row.created, 0),
      downloads: insights.downloads.reduce((sum, row) => sum + row.downloads, 0),
      viewed: insights.funnel.reduce((sum, row) => sum + row.pricingViewed, 0),
    })
    expect(total(one.insights)).toEqual({ paid: 100, refunds: 1, disputes: 1, licenses: 1, downloads: 1, viewed: 1 })
    expect(total(fifty.insights)).toEqual({
      paid: 5_000,
      refunds: 50,
      disputes: 50,
      licenses: 50,
      downloads: 50,
      viewed: 50,
    })
    // The subscriptions of the other tests still run in September: compare the last day's change.
    const lastDay = (insights: Insights) =>
      insights.subscriptions.find((row) => row.day === '2024-09-30' && row.currency === 'usd')!
    expect(lastDay(fifty.insights).active - lastDay(one.insights).active).toBe(49)
    expect(lastDay(fifty.insights).mrr - lastDay(one.insights).mrr).toBe(49 * pro.monthlyPrice * 100)
  })
})

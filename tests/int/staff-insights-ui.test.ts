import { createElement } from 'react'
import { renderToStaticMarkup } from 'react-dom/server'
import { beforeEach, describe, expect, it, vi } from 'vitest'

import { CHARTED_RELEASES } from '../../src/components/insights/DownloadsChart'
import { InsightsPanel } from '../../src/components/insights/InsightsPanel'
import { DEFAULT_INSIGHT_RANGE, insightRangeOf, StaffInsights } from '../../src/components/StaffInsights'
import type * as InsightsModule from '../../src/staff/insights'
import { rangeEndingToday } from '../../src/staff/insights'
import { INSIGHT_SERIES, type InsightRange, type Insights } from '../../src/staff/insights-types'

/*
 * The insights' charts as the server renders them (issue 27). Recharts draws its SVG in the browser only,
 * so these read what every reader gets: headings, words, the accessible names, the tables and the links.
 * The numbers themselves come from a fixture: tests/int/staff-insights.test.ts proves the queries.
 */

const hoisted = vi.hoisted(() => ({ loadInsights: vi.fn() }))
vi.mock('../../src/staff/insights', async (importOriginal) => ({
  ...(await importOriginal<typeof InsightsModule>()),
  loadInsights: hoisted.loadInsights,
}))

const DAYS = ['2026-11-01', '2026-11-02', '2026-11-03', '2026-11-04', '2026-11-05', '2026-11-06', '2026-11-07']
const RELEASES = ['1.0.0', '1.1.0', '1.2.0', '1.3.0', '1.4.0', '2.0.0', '2.1.0']

const week: Insights = {
  from: '2026-11-01',
  to: '2026-11-07',
  days: DAYS,
  revenue: [
    { day: '2026-11-02', currency: 'usd', paid: 14900, refunded: 0, net: 14900 },
    { day: '2026-11-03', currency: 'jpy', paid: 5000, refunded: 0, net: 5000 },
    { day: '2026-11-05', currency: 'usd', paid: 2900, refunded: 14900, net: -12000 },
  ],
  licenses: [
    { day: '2026-11-02', plan: 'pro', planName: 'Pro', created: 2 },
    { day: '2026-11-03', plan: 'ultimate', planName: 'Ultimate for teams', created: 1 },
    { day: '2026-11-05', plan: 'pro', planName: 'Pro', created: 1 },
  ],
  subscriptions: [
    { day: '2026-11-06', currency: 'usd', active: 3, mrr: 8700 },
    { day: '2026-11-07', currency: 'eur', active: 1, mrr: 2500 },
    { day: '2026-11-07', currency: 'usd', active: 4, mrr: 11600 },
  ],
  refunds: [{ day: '2026-11-05', currency: 'usd', refunds: 1, refunded: 14900, disputes: 1, disputed: 2900 }],
  funnel: [
    { day: '2026-11-01', pricingViewed: 40, checkoutStarted: 10, paid: 0 },
    { day: '2026-11-02', pricingViewed: 60, checkoutStarted: 10, paid: 4 },
  ],
  // Seven releases, 1.0.0 the least downloaded: more than the chart draws on their own.
  downloads: RELEASES.map((release, index) => ({ day: '2026-11-04', release, downloads: index + 1 })),
  recovery: [
    { day: '2026-11-03', currency: 'usd', expired: 3, emailed: 2, recovered: 0, recoveredRevenue: 0 },
    { day: '2026-11-04', currency: 'usd', expired: 0, emailed: 0, recovered: 1, recoveredRevenue: 14900 },
  ],
}

const empty: Insights = {
  ...week,
  revenue: [],
  licenses: [],
  subscriptions: [],
  refunds: [],
  funnel: [],
  downloads: [],
  recovery: [],
}

const panel = (insights: Insights, range: InsightRange = 7) =>
  renderToStaticMarkup(createElement(InsightsPanel, { insights, range, adminRoute: '/admin', apiRoute: '/api' }))

/** The markup of one figure, from its heading to the next figure. */
const figure = (html: string, title: string) => {
  const start = html.indexOf(`>${title}</h3>`)
  expect(start, `the figure "${title}"`).toBeGreaterThan(-1)
  const end = html.indexOf('<section', start)
  return html.slice(start, end === -1 ? undefined : end)
}

const csvHref = (series: string, from: string, to: string) =>
  `href="/api/staff/insights.csv?series=${series}&amp;from=${from}&amp;to=${to}"`

const support = { id: 1, collection: 'users', roles: ['support'] }
const customer = { id: 2, collection: 'users', roles: ['customer'] }
const payload = { config: { routes: { admin: '/admin', api: '/api' } } }

beforeEach(() => {
  hoisted.loadInsights.mockReset()
})

describe('the insights panel', () => {
  it('names plans as the seller named them, never by slug', () => {
    const licenses = figure(panel(week), 'New licenses')
    expect(licenses).toContain(
      '<th scope="col">Pro</th><th scope="col">Ultimate for teams</th><th scope="col">Total</th>',
    )
    expect(licenses).toContain('<th scope="row">Mon, Nov 2, 2026</th><td>2</td><td>0</td><td>2</td>')
    expect(licenses).toContain('<tfoot><tr><th scope="row">Total</th><td>3</td><td>1</td><td>4</td></tr></tfoot>')
    expect(licenses).toContain('4 new licenses: Pro 3, Ultimate for teams 1.')
    expect(licenses).not.toMatch(/>ultimate</)
    expect(licenses).toContain(
      'aria-label="New licenses per day by plan, Nov 1 to Nov 7, 2026: 4 new licenses: Pro 3, Ultimate for teams 1." class="staff-insights__chart" role="img"',
    )
  })

  it('formats amounts in their own currency, from minor units (yen have none), one chart per currency', () => {
    const revenue = figure(panel(week), 'Revenue')
    expect(revenue).toContain('<h4>USD</h4>')
    expect(revenue).toContain('<h4>JPY</h4>')
    expect(revenue).toContain('$29.00 net: $178.00 paid, $149.00 refunded.')
    expect(revenue).toContain('¥5,000 net: ¥5,000 paid, ¥0 refunded.')
    // A refund on another day counts on its own day: that day's net is negative.
    expect(revenue).toContain('<th scope="row">Thu, Nov 5, 2026</th><td>$29.00</td><td>$149.00</td><td>-$120.00</td>')
    expect(revenue).toContain(
      'aria-label="Net revenue per day in JPY, Nov 1 to Nov 7, 2026: ¥5,000 net: ¥5,000 paid, ¥0 refunded."',
    )
    // Every day of the range has its row, with nothing on most.
    expect(revenue.match(/<tr><th scope="row">/g)).toHaveLength(2 * DAYS.length + 2)

    const subscriptions = figure(panel(week), 'Subscriptions and monthly recurring revenue')
    expect(subscriptions).toContain('On Nov 7: 5 active subscriptions, $116.00 and €25.00 monthly recurring revenue.')
    expect(subscriptions).toContain(
      '<th scope="col">Day</th><th scope="col">Active</th><th scope="col">MRR, USD</th><th scope="col">MRR, EUR</th>',
    )
    expect(subscriptions).toContain('<th scope="row">Fri, Nov 6, 2026</th><td>3</td><td>$87.00</td><td>€0.00</td>')

    const refunds = figure(panel(week), 'Refunds and disputes')
    expect(refunds).toContain('1 refund ($149.00), 1 dispute ($29.00).')
    expect(refunds).toContain(
      '<th scope="row">Thu, Nov 5, 2026</th><td>1</td><td>$149.00</td><td>1</td><td>$29.00</td>',
    )
  })

  it('gives checkout recovery in words and per day, with what the recovered checkouts paid', () => {
    const recovery = figure(panel(week), 'Checkout recovery')
    expect(recovery).toContain('3 expired, 2 emailed, 1 recovered ($149.00).')
    expect(recovery).toContain(
      '<th scope="col">Expired</th><th scope="col">Emailed</th><th scope="col">Recovered</th><th scope="col">Recovered revenue, USD</th>',
    )
    expect(recovery).toContain('<th scope="row">Wed, Nov 4, 2026</th><td>0</td><td>0</td><td>1</td><td>$149.00</td>')
  })

  it('gives the funnel in words: totals and conversion rates', () => {
    const funnel = figure(panel(week), 'Checkout funnel')
    expect(funnel).toContain(
      '100 pricing page views, 20 checkouts started (20% of views), 4 paid (20% of checkouts started, 4% of views).',
    )
    expect(funnel).toContain(
      '<th scope="col">Pricing viewed</th><th scope="col">Checkout started</th><th scope="col">Paid</th>',
    )
    expect(funnel).toContain('<tfoot><tr><th scope="row">Total</th><td>100</td><td>20</td><td>4</td></tr></tfoot>')
  })

  it('draws the most downloaded releases on their own and lists every release in a table', () => {
    const downloads = figure(panel(week), 'Downloads per release')
    expect(downloads).toContain('28 downloads: 2.1.0 7, 2.0.0 6, 1.4.0 5, 1.3.0 4, 1.2.0 3, 1.1.0 2, 1.0.0 1.')
    const charted = [...RELEASES].reverse().slice(0, CHARTED_RELEASES)
    expect(downloads).toContain(
      `${charted.map((release) => `<th scope="col">${release}</th>`).join('')}<th scope="col">Other releases</th>`,
    )
    expect(downloads).toContain(
      '<th scope="row">Wed, Nov 4, 2026</th><td>7</td><td>6</td><td>5</td><td>4</td><td>3</td><td>3</td><td>28</td>',
    )
    for (const [index, release] of RELEASES.entries())
      expect(downloads).toContain(`<th scope="row">${release}</th><td>${index + 1}</td>`)
    expect(downloads).toContain(
      '<summary>Show every release<span class="staff-insights__hidden"> of downloads per release</span></summary>',
    )
  })

  it('links each figure to the CSV of its series and range, and hides every table behind a disclosure', () => {
    const html = panel(week)
    for (const series of INSIGHT_SERIES) expect(html).toContain(csvHref(series, '2026-11-01', '2026-11-07'))
    expect(html.match(/>Download CSV</g)).toHaveLength(INSIGHT_SERIES.length)
    expect(
      html.match(/<details class="staff-insights__numbers"><summary>Show the numbers/g)!.length,
    ).toBeGreaterThanOrEqual(INSIGHT_SERIES.length)
    expect(html.match(/<table>/g)!.length).toBe(html.match(/<caption>/g)!.length)
    expect(html.match(/role="img"/g)!.length).toBeGreaterThanOrEqual(INSIGHT_SERIES.length)
  })

  it('says so in words when the range has nothing, and still offers the CSV', () => {
    const html = panel(empty)
    for (const words of [
      'No payments or refunds in this range.',
      'No new licenses in this range.',
      'No active subscriptions in this range.',
      'No refunds or disputes in this range.',
      'No pricing page views, checkouts or payments in this range.',
      'No release downloads in this range.',
      'No abandoned checkouts in this range.',
    ])
      expect(html).toContain(`<p class="staff-insights__empty">${words}</p>`)
    expect(html).not.toContain('<table')
    expect(html).not.toContain('role="img"')
    for (const series of INSIGHT_SERIES) expect(html).toContain(csvHref(series, '2026-11-01', '2026-11-07'))
  })

  it('a funnel of zeros is empty too', () => {
    const html = panel({ ...empty, funnel: [{ day: '2026-11-03', pricingViewed: 0, checkoutStarted: 0, paid: 0 }] })
    expect(html).toContain('No pricing page views, checkouts or payments in this range.')
  })

  it('marks the current range in the switcher, the others plain links', () => {
    const html = panel(week, 90)
    expect(html).toContain('<nav aria-label="Insights range">')
    expect(html).toContain('<a href="/admin?insights=7">7 days</a>')
    expect(html).toContain('<a href="/admin?insights=30">30 days</a>')
    expect(html).toContain('<a aria-current="page" href="/admin?insights=90">90 days</a>')
    expect(html.match(/aria-current/g)).toHaveLength(1)
  })
})

describe('StaffInsights', () => {
  it('reads the range from the query: 7, 30 or 90 days, anything else 30', () => {
    expect(insightRangeOf({ insights: '7' })).toBe(7)
    expect(insightRangeOf({ insights: '90' })).toBe(90)
    expect(insightRangeOf({ insights: '30' })).toBe(30)
    for (const insights of [undefined, '', '14', '7.0', ' 7', '365', 'all', ['7', '90']])
      expect(insightRangeOf({ insights })).toBe(DEFAULT_INSIGHT_RANGE)
    expect(insightRangeOf(undefined)).toBe(30)
  })

  it('loads the range once for staff and renders it, the range marked current', async () => {
    hoisted.loadInsights.mockResolvedValue(week)
    const element = await StaffInsights({
      payload: payload as never,
      user: support as never,
      searchParams: { insights: '7' },
    })
    expect(hoisted.loadInsights).toHaveBeenCalledTimes(1)
    expect(hoisted.loadInsights).toHaveBeenCalledWith(payload, rangeEndingToday(7))
    const html = renderToStaticMarkup(element)
    expect(html).toContain('<a aria-current="page" href="/admin?insights=7">7 days</a>')
    expect(html).toContain('>Insights</h2>')

    hoisted.loadInsights.mockResolvedValue(week)
    const fallback = renderToStaticMarkup(
      await StaffInsights({ payload: payload as never, user: support as never, searchParams: { insights: '12' } }),
    )
    expect(hoisted.loadInsights).toHaveBeenLastCalledWith(payload, rangeEndingToday(30))
    expect(fallback).toContain('<a aria-current="page" href="/admin?insights=30">30 days</a>')
  })

  it('renders nothing, and loads nothing, for anyone but staff', async () => {
    expect(
      await StaffInsights({ payload: payload as never, user: customer as never, searchParams: { insights: '7' } }),
    ).toBeNull()
    expect(await StaffInsights({ payload: payload as never, user: null })).toBeNull()
    expect(hoisted.loadInsights).not.toHaveBeenCalled()
  })
})

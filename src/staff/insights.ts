import { createLocalReq, type Payload } from 'payload'

import {
  analytics_events,
  downloads,
  license_changes,
  licenses,
  one_time_purchases,
  payment_history,
  plans,
  releases,
  user_subscriptions,
} from '../db/schema.generated'
import { execute, sql } from '../db/transaction'
import { ServiceError } from '../http/errors'
import { PLAN_CURRENCY } from '../plans/format'
import type {
  DownloadsRow,
  RecoveryRow,
  FunnelRow,
  InsightRange,
  Insights,
  InsightSeries,
  LicensesRow,
  RefundsRow,
  RevenueRow,
  SubscriptionsRow,
} from './insights-types'

/** The longest range one load or CSV covers, in days (a year, leap day included). */
export const MAX_INSIGHT_DAYS = 366

const DAY_MS = 24 * 60 * 60 * 1000
const DAY_PATTERN = /^\d{4}-\d{2}-\d{2}$/

const dayOf = (date: Date): string => date.toISOString().slice(0, 10)

/** A `YYYY-MM-DD` that names a real calendar day, as UTC midnight; null otherwise (2025-02-30 included). */
const parseDay = (value: string): Date | null => {
  if (!DAY_PATTERN.test(value)) return null
  const date = new Date(`${value}T00:00:00.000Z`)
  return Number.isNaN(date.getTime()) || dayOf(date) !== value ? null : date
}

/** The last `days` UTC calendar days, today included: 7 → a week ending today. */
export const rangeEndingToday = (days: InsightRange, now = new Date()): { from: string; to: string } => {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate())
  return { from: dayOf(new Date(today - (days - 1) * DAY_MS)), to: dayOf(new Date(today)) }
}

/**
 * A range from the query (`from`, `to`: inclusive `YYYY-MM-DD` UTC days), or 400 `invalid_request`:
 * a malformed or impossible day, `to` before `from`, or more than MAX_INSIGHT_DAYS days.
 */
export const parseInsightRange = (from: string, to: string): { from: string; to: string } => {
  const start = parseDay(from)
  const end = parseDay(to)
  if (!start) throw new ServiceError(400, 'invalid_request', 'from: give a day as YYYY-MM-DD.')
  if (!end) throw new ServiceError(400, 'invalid_request', 'to: give a day as YYYY-MM-DD.')
  if (end < start) throw new ServiceError(400, 'invalid_request', 'to: the range ends before it starts.')
  if (daysBetween(start, end) > MAX_INSIGHT_DAYS)
    throw new ServiceError(400, 'invalid_request', `The range covers at most ${MAX_INSIGHT_DAYS} days.`)
  return { from, to }
}

const daysBetween = (start: Date, end: Date) => Math.round((end.getTime() - start.getTime()) / DAY_MS) + 1

/** Every day from `from` to `to`, inclusive. */
export const daysOf = (range: { from: string; to: string }): string[] => {
  const start = parseDay(range.from)
  const end = parseDay(range.to)
  if (!start || !end) throw new Error(`not a range of days: ${range.from}..${range.to}`)
  const days: string[] = []
  for (let at = start.getTime(); at <= end.getTime(); at += DAY_MS) days.push(dayOf(new Date(at)))
  return days
}

const num = (value: unknown): number => Number(value ?? 0)

/** The plan catalogue's whole-dollar prices are in this currency; a payment's own currency wins over it. */
const PLAN_CURRENCY_CODE = PLAN_CURRENCY.toLowerCase()
/** Minor units per major unit of the plan catalogue's currency (cents per dollar). */
const PLAN_MINOR_UNITS = 100

/**
 * The staff insights of a range, each series from one aggregate statement (seven in all, at once, whatever
 * the number of rows): days are UTC calendar days and amounts minor units; docs/INSIGHTS.md gives the
 * rule of each figure. Series rows leave out days with nothing; `days` lists them all.
 */
export const loadInsights = async (payload: Payload, range: { from: string; to: string }): Promise<Insights> => {
  const { from, to } = parseInsightRange(range.from, range.to)
  const req = await createLocalReq({}, payload)
  // The range as instants: UTC midnight of `from`, and UTC midnight after `to`.
  const start = sql`((${from}::date)::timestamp AT TIME ZONE 'UTC')`
  const end = sql`((${to}::date + 1)::timestamp AT TIME ZONE 'UTC')`
  const utcDay = (column: unknown) => sql`to_char((${column} AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD')`
  const paidAt = sql`coalesce(${payment_history.paidAt}, ${payment_history.createdAt})`

  // Each refund event carries the charge's cumulative refunded amount: its own refund is the increase
  // over the charge's previous event (LAG over every event of the charge, before the range too).
  const refundIncrements = sql`
    SELECT e.occurred_at, e.currency,
      e.cumulative - coalesce(lag(e.cumulative) OVER (PARTITION BY e.charge ORDER BY e.cumulative, e.occurred_at), 0) AS amount
    FROM (
      SELECT ${analytics_events.occurredAt} AS occurred_at, split_part(${analytics_events.sourceEventId}, ':', 1) AS charge,
        (${analytics_events.properties} ->> 'amountRefunded')::numeric AS cumulative,
        ${eventCurrency(sql`split_part(${analytics_events.sourceEventId}, ':', 1)`)} AS currency
      FROM ${analytics_events}
      WHERE ${analytics_events.name} IN ('refund_partial', 'refund_full') AND ${analytics_events.occurredAt} < ${end}
    ) e`

  // A dispute counts once, on the day of its first event (opened, or already closed when first seen).
  const disputesOpened = sql`
    SELECT DISTINCT ON (${analytics_events.sourceEventId}) ${analytics_events.occurredAt} AS occurred_at,
      coalesce((${analytics_events.properties} ->> 'amount')::numeric, 0) AS amount,
      ${eventCurrency(sql`${analytics_events.properties} ->> 'chargeId'`)} AS currency
    FROM ${analytics_events}
    WHERE ${analytics_events.name} IN ('dispute_opened', 'dispute_won', 'dispute_lost') AND ${analytics_events.occurredAt} < ${end}
    ORDER BY ${analytics_events.sourceEventId}, ${analytics_events.occurredAt}`

  const [revenue, licensesRows, subscriptions, refunds, funnel, downloadRows, recovery] = await Promise.all([
    execute<{ day: string; currency: string; paid: string; refunded: string }>(
      req,
      sql`SELECT day, currency, sum(paid) AS paid, sum(refunded) AS refunded FROM (
          SELECT ${utcDay(paidAt)} AS day, lower(${payment_history.currency}) AS currency, ${payment_history.amount} AS paid, 0 AS refunded
          FROM ${payment_history}
          WHERE ${payment_history.status} = 'succeeded' AND ${paidAt} >= ${start} AND ${paidAt} < ${end}
          UNION ALL
          SELECT ${utcDay(sql.raw('r.occurred_at'))}, r.currency, 0, r.amount
          FROM (${refundIncrements}) r WHERE r.occurred_at >= ${start} AND r.amount > 0
        ) facts
        GROUP BY day, currency ORDER BY day, currency`,
    ),
    execute<{ day: string; plan: string; plan_name: string; created: string }>(
      req,
      sql`SELECT ${utcDay(sql`coalesce(${licenses.grantedAt}, ${licenses.createdAt})`)} AS day, ${plans.slug} AS plan, ${plans.name} AS plan_name, count(*) AS created
        FROM ${licenses} JOIN ${plans} ON ${plans.id} = ${licenses.plan}
        WHERE coalesce(${licenses.grantedAt}, ${licenses.createdAt}) >= ${start} AND coalesce(${licenses.grantedAt}, ${licenses.createdAt}) < ${end}
        GROUP BY 1, ${plans.slug}, ${plans.name} ORDER BY 1, ${plans.slug}`,
    ),
    execute<{ day: string; currency: string; active: string; mrr: string }>(req, subscriptionsQuery({ from, to }, end)),
    execute<{ day: string; currency: string; refunds: string; refunded: string; disputes: string; disputed: string }>(
      req,
      sql`SELECT day, currency, sum(refunds) AS refunds, sum(refunded) AS refunded, sum(disputes) AS disputes, sum(disputed) AS disputed FROM (
          SELECT ${utcDay(sql.raw('r.occurred_at'))} AS day, r.currency, 1 AS refunds, r.amount AS refunded, 0 AS disputes, 0 AS disputed
          FROM (${refundIncrements}) r WHERE r.occurred_at >= ${start} AND r.amount > 0
          UNION ALL
          SELECT ${utcDay(sql.raw('d.occurred_at'))}, d.currency, 0, 0, 1, d.amount
          FROM (${disputesOpened}) d WHERE d.occurred_at >= ${start}
        ) facts
        GROUP BY day, currency ORDER BY day, currency`,
    ),
    execute<{ day: string; pricing_viewed: string; checkout_started: string; paid: string }>(
      req,
      sql`SELECT ${utcDay(analytics_events.occurredAt)} AS day,
          count(*) FILTER (WHERE ${analytics_events.name} = 'pricing_viewed') AS pricing_viewed,
          count(*) FILTER (WHERE ${analytics_events.name} = 'checkout_started') AS checkout_started,
          count(*) FILTER (WHERE ${analytics_events.name} = 'purchase_completed'
            OR (${analytics_events.name} = 'subscription_started' AND coalesce(${analytics_events.properties} ->> 'status', '') <> 'trialing')) AS paid
        FROM ${analytics_events}
        WHERE ${analytics_events.name} IN ('pricing_viewed', 'checkout_started', 'purchase_completed', 'subscription_started')
          AND ${analytics_events.occurredAt} >= ${start} AND ${analytics_events.occurredAt} < ${end}
        GROUP BY 1 ORDER BY 1`,
    ),
    execute<{ day: string; release: string; downloads: string }>(
      req,
      sql`SELECT ${utcDay(downloads.createdAt)} AS day, coalesce(${releases.version}, ${downloads.version}) AS release, count(*) AS downloads
        FROM ${downloads} LEFT JOIN ${releases} ON ${releases.id} = ${downloads.release}
        WHERE ${downloads.createdAt} >= ${start} AND ${downloads.createdAt} < ${end}
        GROUP BY 1, 2 ORDER BY 1, 2`,
    ),
    // Each fact is one analytics event (recorded once per checkout): expired, emailed, recovered.
    execute<{ day: string; currency: string; expired: string; emailed: string; recovered: string; revenue: string }>(
      req,
      sql`SELECT ${utcDay(analytics_events.occurredAt)} AS day,
          lower(coalesce(${analytics_events.properties} ->> 'currency', ${PLAN_CURRENCY_CODE})) AS currency,
          count(*) FILTER (WHERE ${analytics_events.name} = 'checkout_expired') AS expired,
          count(*) FILTER (WHERE ${analytics_events.name} = 'recovery_email_sent') AS emailed,
          count(*) FILTER (WHERE ${analytics_events.name} = 'checkout_recovered') AS recovered,
          coalesce(sum((${analytics_events.properties} ->> 'amount')::numeric) FILTER (WHERE ${analytics_events.name} = 'checkout_recovered'), 0) AS revenue
        FROM ${analytics_events}
        WHERE ${analytics_events.name} IN ('checkout_expired', 'recovery_email_sent', 'checkout_recovered')
          AND ${analytics_events.occurredAt} >= ${start} AND ${analytics_events.occurredAt} < ${end}
        GROUP BY 1, 2 ORDER BY 1, 2`,
    ),
  ])

  return {
    from,
    to,
    days: daysOf({ from, to }),
    revenue: revenue.map((row): RevenueRow => {
      const paid = num(row.paid)
      const refunded = num(row.refunded)
      return { day: row.day, currency: row.currency, paid, refunded, net: paid - refunded }
    }),
    licenses: licensesRows.map((row): LicensesRow => ({
      day: row.day,
      plan: row.plan,
      planName: row.plan_name,
      created: num(row.created),
    })),
    subscriptions: subscriptions.map((row): SubscriptionsRow => ({
      day: row.day,
      currency: row.currency,
      active: num(row.active),
      mrr: num(row.mrr),
    })),
    refunds: refunds.map((row): RefundsRow => ({
      day: row.day,
      currency: row.currency,
      refunds: num(row.refunds),
      refunded: num(row.refunded),
      disputes: num(row.disputes),
      disputed: num(row.disputed),
    })),
    funnel: funnel.map((row): FunnelRow => ({
      day: row.day,
      pricingViewed: num(row.pricing_viewed),
      checkoutStarted: num(row.checkout_started),
      paid: num(row.paid),
    })),
    downloads: downloadRows.map((row): DownloadsRow => ({
      day: row.day,
      release: row.release,
      downloads: num(row.downloads),
    })),
    recovery: recovery.map((row): RecoveryRow => ({
      day: row.day,
      currency: row.currency,
      expired: num(row.expired),
      emailed: num(row.emailed),
      recovered: num(row.recovered),
      recoveredRevenue: num(row.revenue),
    })),
  }
}

/**
 * The currency of a refund or dispute event: its own `currency` property (recorded since issue 27),
 * else that of what it paid for: the invoice's payment, the one-time purchase of its charge, or the
 * license change; else the plan catalogue's currency.
 */
const eventCurrency = (chargeId: ReturnType<typeof sql>) => sql`lower(coalesce(
  ${analytics_events.properties} ->> 'currency',
  (SELECT ${payment_history.currency} FROM ${payment_history}
    WHERE ${payment_history.processorInvoiceId} = ${analytics_events.properties} ->> 'invoiceId' LIMIT 1),
  (SELECT ${one_time_purchases.currency} FROM ${one_time_purchases} WHERE ${one_time_purchases.processorChargeId} = ${chargeId} LIMIT 1),
  (SELECT ${license_changes.currency} FROM ${license_changes}
    WHERE ${license_changes.id}::text = ${analytics_events.properties} ->> 'licenseChangeId' LIMIT 1),
  ${PLAN_CURRENCY_CODE}
))`

/**
 * Subscriptions active at the end of each day, and their monthly recurring revenue. A subscription runs
 * from its row's creation until it ended: never for one still active, trialing or past due; for a
 * canceled one, the end of its paid period when that had passed by the time the cancellation was
 * recorded (cancel at period end), else when it was canceled; for unpaid, paused or expired ones, when
 * that state was recorded; an incomplete one never runs. Its monthly amount is its latest paid invoice
 * up to the range's end (less tax), else its plan's catalogue price times its seats; yearly ones count
 * a twelfth, rounded to the minor unit.
 */
const subscriptionsQuery = ({ from, to }: { from: string; to: string }, end: ReturnType<typeof sql>) => {
  const recordedAt = sql`coalesce(${user_subscriptions.processorSnapshotAt}, ${user_subscriptions.updatedAt})`
  return sql`
    WITH running AS (
      SELECT ${user_subscriptions.id} AS id, ${user_subscriptions.createdAt} AS started_at,
        CASE
          WHEN ${user_subscriptions.status} IN ('active', 'trialing', 'past_due') THEN NULL
          WHEN ${user_subscriptions.status} = 'incomplete' THEN ${user_subscriptions.createdAt}
          WHEN ${user_subscriptions.status} = 'canceled' THEN
            CASE WHEN ${user_subscriptions.cancelAtPeriodEnd} AND ${user_subscriptions.currentPeriodEnd} <= ${recordedAt}
              THEN ${user_subscriptions.currentPeriodEnd}
              ELSE coalesce(${user_subscriptions.canceledAt}, ${recordedAt}) END
          ELSE ${recordedAt}
        END AS ended_at,
        ${user_subscriptions.billingCycle} AS billing_cycle,
        coalesce(lower(latest.currency), ${PLAN_CURRENCY_CODE}) AS currency,
        coalesce(latest.amount,
          CASE WHEN ${user_subscriptions.billingCycle} = 'yearly' THEN ${plans.yearlyPrice} ELSE ${plans.monthlyPrice} END
            * ${PLAN_MINOR_UNITS} * coalesce(${user_subscriptions.quantity}, 1),
          0) AS amount
      FROM ${user_subscriptions}
      LEFT JOIN ${plans} ON ${plans.id} = ${user_subscriptions.plan}
      LEFT JOIN LATERAL (
        SELECT ${payment_history.currency} AS currency, ${payment_history.amount} - coalesce(${payment_history.taxAmount}, 0) AS amount
        FROM ${payment_history}
        WHERE ${payment_history.subscription} = ${user_subscriptions.id} AND ${payment_history.status} = 'succeeded'
          AND coalesce(${payment_history.paidAt}, ${payment_history.createdAt}) < ${end}
        ORDER BY coalesce(${payment_history.paidAt}, ${payment_history.createdAt}) DESC, ${payment_history.id} DESC LIMIT 1
      ) latest ON true
      WHERE ${user_subscriptions.createdAt} < ${end}
    ),
    days AS (
      SELECT to_char(day, 'YYYY-MM-DD') AS day, (day + interval '1 day') AT TIME ZONE 'UTC' AS day_end
      FROM generate_series((${from}::date)::timestamp, (${to}::date)::timestamp, interval '1 day') AS day
    )
    SELECT days.day, running.currency, count(*) AS active,
      sum(CASE WHEN running.billing_cycle = 'yearly' THEN round(running.amount / 12.0) ELSE running.amount END) AS mrr
    FROM days JOIN running ON running.started_at < days.day_end AND (running.ended_at IS NULL OR running.ended_at >= days.day_end)
    GROUP BY days.day, running.currency ORDER BY days.day, running.currency`
}

/** One CSV table per series: its columns, in order, and the keys that split a day into rows. */
const CSV_COLUMNS = {
  revenue: { columns: ['day', 'currency', 'paid', 'refunded', 'net'], keys: ['currency'] },
  licenses: { columns: ['day', 'plan', 'planName', 'created'], keys: ['plan', 'planName'] },
  subscriptions: { columns: ['day', 'currency', 'active', 'mrr'], keys: ['currency'] },
  refunds: { columns: ['day', 'currency', 'refunds', 'refunded', 'disputes', 'disputed'], keys: ['currency'] },
  funnel: { columns: ['day', 'pricingViewed', 'checkoutStarted', 'paid'], keys: [] },
  downloads: { columns: ['day', 'release', 'downloads'], keys: ['release'] },
  recovery: { columns: ['day', 'currency', 'expired', 'emailed', 'recovered', 'recoveredRevenue'], keys: ['currency'] },
} as const satisfies Record<InsightSeries, { columns: readonly string[]; keys: readonly string[] }>

/**
 * A text cell a spreadsheet reads as text: one starting with = + - @ (or a tab or carriage return) gets
 * a leading apostrophe, so a staff-edited plan name or version cannot run as a formula; then quoted
 * when it holds a comma, a quote or a line break.
 */
export const csvCell = (value: string | number): string => {
  if (typeof value === 'number') return String(value)
  const text = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text
}

/**
 * A series as CSV: a header row, then one row per day of the range; a series split by currency, plan
 * or release has one row per day for each one seen in the range, zero on days without it. A series
 * with nothing in the range (and so no currency, plan or release) is its header alone; the funnel
 * always has every day.
 */
export const insightsCsv = (insights: Insights, series: InsightSeries): string => {
  const { columns, keys } = CSV_COLUMNS[series]
  const rows = insights[series] as unknown as Record<string, string | number>[]
  const keyOf = (row: Record<string, string | number>) => JSON.stringify(keys.map((key) => row[key]))
  // The funnel has no key: one group, so every day has its row.
  const seen = new Map<string, Record<string, string | number>>(keys.length === 0 ? [[keyOf({}), {}]] : [])
  for (const row of rows)
    if (!seen.has(keyOf(row))) seen.set(keyOf(row), Object.fromEntries(keys.map((key) => [key, row[key]!])))
  const groups = [...seen.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  const byDayAndKey = new Map(rows.map((row) => [`${row.day} ${keyOf(row)}`, row]))
  const lines = [columns.join(',')]
  for (const day of insights.days) {
    for (const [key, values] of groups) {
      const row = byDayAndKey.get(`${day} ${key}`)
      lines.push(
        columns.map((column) => csvCell(column === 'day' ? day : (row?.[column] ?? values[column] ?? 0))).join(','),
      )
    }
  }
  return `${lines.join('\r\n')}\r\n`
}

import { createLocalReq, type Payload } from 'payload'

import type { SqlRow } from '../db/rows'
import {
  downloads,
  licenses,
  payment_history,
  plans,
  processor_events,
  template_downloads,
} from '../db/schema.generated'
import { columnList, execute, sql } from '../db/transaction'

/** Sales of one currency: amounts in the currency's minor unit (cents), as the processor sends them. */
type CurrencySales = { currency: string; payments: number; gross: number; refunded: number; net: number }
type PlanLicenses = { planId: number; plan: string; name: string; active: number }
type FailedEvent = {
  id: number
  eventId: string
  type: string
  attempts: number
  lastError: string | null
  receivedAt: string
}

export type DashboardData = {
  sales: { since: string; byCurrency: CurrencySales[] }
  licenses: { byPlan: PlanLicenses[]; total: number }
  downloads: { since: string; releases: number; templates: number }
  failedEvents: { total: number; latest: FailedEvent[] }
}

export const SALES_DAYS = 30
/** Failed processor events listed by name; the total counts them all. */
const FAILED_EVENTS_SHOWN = 10

const DAY_MS = 24 * 60 * 60 * 1000

/** Monday 00:00 UTC of the week `now` falls in. */
export const startOfWeek = (now: Date): Date => {
  const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate())
  const daysSinceMonday = (now.getUTCDay() + 6) % 7
  return new Date(midnight - daysSinceMonday * DAY_MS)
}

const iso = (value: unknown): string =>
  value instanceof Date ? value.toISOString() : new Date(String(value)).toISOString()

/**
 * The admin dashboard's numbers, four aggregate queries at once: succeeded payments of the last 30
 * days by currency (gross, refunded, net; by currency code, as amounts of two currencies do not compare), licenses that count as active now (status active, validity
 * not run out) by plan, release and template downloads since Monday (UTC), and the processor events
 * that failed and wait for a retry. Read straight from PostgreSQL: the Local API does not aggregate.
 */
export const staffDashboardData = async (payload: Payload, now = new Date()): Promise<DashboardData> => {
  const req = await createLocalReq({}, payload)
  const salesSince = new Date(now.getTime() - SALES_DAYS * DAY_MS).toISOString()
  const weekStart = startOfWeek(now).toISOString()
  const at = now.toISOString()
  const [sales, activeByPlan, weekDownloads, failed] = await Promise.all([
    execute<{ currency: string; payments: string; gross: string; refunded: string }>(
      req,
      sql`SELECT lower(${payment_history.currency}) AS currency, count(*) AS payments, sum(${payment_history.amount}) AS gross,
          sum(coalesce(${payment_history.refundedAmount}, 0)) AS refunded
        FROM ${payment_history}
        WHERE ${payment_history.status} = 'succeeded'
          AND coalesce(${payment_history.paidAt}, ${payment_history.createdAt}) > ${salesSince}::timestamptz
          AND coalesce(${payment_history.paidAt}, ${payment_history.createdAt}) <= ${at}::timestamptz
        GROUP BY lower(${payment_history.currency}) ORDER BY lower(${payment_history.currency})`,
    ),
    execute<Pick<SqlRow<typeof plans>, 'id' | 'name'> & { plan: string; active: string }>(
      req,
      sql`SELECT ${plans.id}, ${plans.slug} AS plan, ${plans.name} AS name, count(${licenses.id}) AS active
        FROM ${plans} LEFT JOIN ${licenses} ON ${licenses.plan} = ${plans.id} AND ${licenses.status} = 'active'
          AND (${licenses.validUntil} IS NULL OR ${licenses.validUntil} > ${at}::timestamptz)
        GROUP BY ${plans.id}, ${plans.slug}, ${plans.name}, ${plans.order} ORDER BY ${plans.order}, ${plans.slug}`,
    ),
    execute<{ releases: string; templates: string }>(
      req,
      sql`SELECT
          (SELECT count(*) FROM ${downloads}
            WHERE ${downloads.createdAt} >= ${weekStart}::timestamptz AND ${downloads.createdAt} <= ${at}::timestamptz) AS releases,
          (SELECT count(*) FROM ${template_downloads}
            WHERE ${template_downloads.createdAt} >= ${weekStart}::timestamptz AND ${template_downloads.createdAt} <= ${at}::timestamptz) AS templates`,
    ),
    execute<
      Pick<SqlRow<typeof processor_events>, 'id' | 'event_id' | 'type' | 'attempts' | 'last_error' | 'received_at'> & {
        total: string
      }
    >(
      req,
      sql`SELECT ${columnList(processor_events.id, processor_events.eventId, processor_events.type, processor_events.attempts, processor_events.lastError, processor_events.receivedAt)},
          count(*) OVER () AS total
        FROM ${processor_events} WHERE ${processor_events.status} = 'failed'
        ORDER BY ${processor_events.receivedAt} DESC, ${processor_events.id} DESC LIMIT ${FAILED_EVENTS_SHOWN}`,
    ),
  ])
  const byPlan = activeByPlan.map((row) => ({
    planId: Number(row.id),
    plan: row.plan,
    name: row.name,
    active: Number(row.active),
  }))
  return {
    sales: {
      since: salesSince,
      byCurrency: sales.map((row) => {
        const gross = Number(row.gross)
        const refunded = Number(row.refunded)
        return { currency: row.currency, payments: Number(row.payments), gross, refunded, net: gross - refunded }
      }),
    },
    licenses: { byPlan, total: byPlan.reduce((sum, row) => sum + row.active, 0) },
    downloads: {
      since: weekStart,
      releases: Number(weekDownloads[0]?.releases ?? 0),
      templates: Number(weekDownloads[0]?.templates ?? 0),
    },
    failedEvents: {
      total: Number(failed[0]?.total ?? 0),
      latest: failed.map((row) => ({
        id: Number(row.id),
        eventId: row.event_id,
        type: row.type,
        attempts: Number(row.attempts ?? 0),
        lastError: row.last_error,
        receivedAt: iso(row.received_at),
      })),
    },
  }
}

/** An amount in a currency's minor unit, formatted: 123456 usd → "$1,234.56", 5000 jpy → "¥5,000". */
export const formatMinorAmount = (amount: number, currency: string, locale = 'en-US'): string => {
  try {
    const format = new Intl.NumberFormat(locale, { style: 'currency', currency: currency.toUpperCase() })
    const digits = format.resolvedOptions().maximumFractionDigits ?? 2
    return format.format(amount / 10 ** digits)
  } catch {
    // Not an ISO 4217 code: the raw amount, still grouped.
    return `${new Intl.NumberFormat(locale).format(amount)} ${currency}`
  }
}

import { createLocalReq, type Payload } from 'payload'

import { execute, sql } from '../db/transaction'

/** Sales of one currency: amounts in the currency's minor unit (cents), as the processor sends them. */
export type CurrencySales = { currency: string; payments: number; gross: number; refunded: number; net: number }
export type PlanLicenses = { planId: number; plan: string; name: string; active: number }
export type FailedEvent = { id: number; eventId: string; type: string; attempts: number; lastError: string | null; receivedAt: string }

export type DashboardData = {
  sales: { since: string; byCurrency: CurrencySales[] }
  licenses: { byPlan: PlanLicenses[]; total: number }
  downloads: { since: string; releases: number; templates: number }
  failedEvents: { total: number; latest: FailedEvent[] }
}

export const SALES_DAYS = 30
/** Failed processor events listed by name; the total counts them all. */
export const FAILED_EVENTS_SHOWN = 10

const DAY_MS = 24 * 60 * 60 * 1000

/** Monday 00:00 UTC of the week `now` falls in. */
export const startOfWeek = (now: Date): Date => {
  const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate())
  const daysSinceMonday = (now.getUTCDay() + 6) % 7
  return new Date(midnight - daysSinceMonday * DAY_MS)
}

const iso = (value: unknown): string => (value instanceof Date ? value.toISOString() : new Date(String(value)).toISOString())

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
  const [sales, licenses, downloads, failed] = await Promise.all([
    execute<{ currency: string; payments: string; gross: string; refunded: string }>(
      req,
      sql`SELECT lower(currency) AS currency, count(*) AS payments, sum(amount) AS gross, sum(coalesce(refunded_amount, 0)) AS refunded
        FROM payment_history
        WHERE status = 'succeeded' AND coalesce(paid_at, created_at) > ${salesSince}::timestamptz AND coalesce(paid_at, created_at) <= ${at}::timestamptz
        GROUP BY lower(currency) ORDER BY lower(currency)`,
    ),
    execute<{ id: number; plan: string; name: string; active: string }>(
      req,
      sql`SELECT p.id, p.slug AS plan, p.name AS name, count(l.id) AS active
        FROM plans p LEFT JOIN licenses l ON l.plan_id = p.id AND l.status = 'active' AND (l.valid_until IS NULL OR l.valid_until > ${at}::timestamptz)
        GROUP BY p.id, p.slug, p.name, p."order" ORDER BY p."order", p.slug`,
    ),
    execute<{ releases: string; templates: string }>(
      req,
      sql`SELECT (SELECT count(*) FROM downloads WHERE created_at >= ${weekStart}::timestamptz AND created_at <= ${at}::timestamptz) AS releases,
        (SELECT count(*) FROM template_downloads WHERE created_at >= ${weekStart}::timestamptz AND created_at <= ${at}::timestamptz) AS templates`,
    ),
    execute<{ id: number; event_id: string; type: string; attempts: string | number | null; last_error: string | null; received_at: Date | string; total: string }>(
      req,
      sql`SELECT id, event_id, type, attempts, last_error, received_at, count(*) OVER () AS total
        FROM processor_events WHERE status = 'failed' ORDER BY received_at DESC, id DESC LIMIT ${FAILED_EVENTS_SHOWN}`,
    ),
  ])
  const byPlan = licenses.map((row) => ({ planId: Number(row.id), plan: row.plan, name: row.name, active: Number(row.active) }))
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
    downloads: { since: weekStart, releases: Number(downloads[0]?.releases ?? 0), templates: Number(downloads[0]?.templates ?? 0) },
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

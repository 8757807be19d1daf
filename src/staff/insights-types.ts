/**
 * The staff insights' shapes (docs/INSIGHTS.md), shared by the aggregate queries
 * (src/staff/insights.ts), the CSV export (GET /api/staff/insights.csv) and the admin's charts
 * (src/components/insights/). Days are UTC calendar days, `YYYY-MM-DD`; amounts are in the currency's
 * minor unit (cents), with the lowercase ISO currency beside them.
 */
export const INSIGHT_SERIES = [
  'revenue',
  'licenses',
  'subscriptions',
  'refunds',
  'funnel',
  'downloads',
  'recovery',
] as const
export type InsightSeries = (typeof INSIGHT_SERIES)[number]

/** The ranges the dashboard offers, in days ending today (UTC). */
export const INSIGHT_RANGES = [7, 30, 90] as const
export type InsightRange = (typeof INSIGHT_RANGES)[number]

/** Payments received on the day, less refunds made on the day (a refund counts on its own day). */
export type RevenueRow = { day: string; currency: string; paid: number; refunded: number; net: number }
/** Licenses created on the day, per plan (`planName` is what a seller reads). */
export type LicensesRow = { day: string; plan: string; planName: string; created: number }
/** Subscriptions active at the end of the day, and their monthly recurring revenue (yearly prices / 12). */
export type SubscriptionsRow = { day: string; currency: string; active: number; mrr: number }
/** Refunds and disputes opened on the day: how many and how much. */
export type RefundsRow = {
  day: string
  currency: string
  refunds: number
  refunded: number
  disputes: number
  disputed: number
}
/** The checkout funnel on the day: pricing viewed, checkout started, paid. */
export type FunnelRow = { day: string; pricingViewed: number; checkoutStarted: number; paid: number }
/**
 * Checkout recovery on the day, per currency: checkouts that expired unpaid, recovery emails sent, and
 * checkouts paid through a recovery link with what they paid (`recoveredRevenue`, minor units).
 */
export type RecoveryRow = {
  day: string
  currency: string
  expired: number
  emailed: number
  recovered: number
  recoveredRevenue: number
}
/** Release downloads on the day, per release version. */
export type DownloadsRow = { day: string; release: string; downloads: number }

export type Insights = {
  /** First and last day of the range, inclusive. */
  from: string
  to: string
  /** Every day of the range in order: the charts' x axis (series rows leave out days with nothing). */
  days: string[]
  revenue: RevenueRow[]
  licenses: LicensesRow[]
  subscriptions: SubscriptionsRow[]
  refunds: RefundsRow[]
  funnel: FunnelRow[]
  downloads: DownloadsRow[]
  recovery: RecoveryRow[]
}

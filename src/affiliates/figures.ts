import type { PayloadRequest } from 'payload'

import { affiliate_clicks, affiliate_commissions, affiliate_referrals, affiliates } from '../db/schema.generated'
import { execute, sql } from '../db/transaction'
import { affiliateLink } from './apply'

export type AffiliateFigures = {
  code: string
  status: string
  rateBps: number
  payoutEmail: string
  link: string
  clicks: number
  sales: number
  /** Per currency, in minor units: pending (held or in the hold period), available, paid out. */
  commissions: { currency: string; pending: number; available: number; paid: number }[]
}

/**
 * An affiliate's own figures (GET /api/affiliates/me and the dashboard): only the signed-in account's
 * row is read, so no affiliate sees another's. Null when the account never applied.
 */
export const affiliateFigures = async (
  req: PayloadRequest,
  serverUrl: string,
  userId: number,
): Promise<AffiliateFigures | null> => {
  const [affiliate] = await execute<{
    id: number
    code: string
    status: string
    rate_bps: string
    payout_email: string
  }>(
    req,
    sql`SELECT ${affiliates.id}, ${affiliates.code}, ${affiliates.status}, ${affiliates.rateBps}, ${affiliates.payoutEmail}
        FROM ${affiliates} WHERE ${affiliates.user} = ${userId}`,
  )
  if (!affiliate) return null
  const c = affiliate_commissions
  const [counts, money] = await Promise.all([
    execute<{ clicks: string; sales: string }>(
      req,
      sql`SELECT (SELECT count(*) FROM ${affiliate_clicks} WHERE ${affiliate_clicks.affiliate} = ${affiliate.id}) AS clicks,
            (SELECT count(*) FROM ${affiliate_referrals} WHERE ${affiliate_referrals.affiliate} = ${affiliate.id}) AS sales`,
    ),
    execute<{ currency: string; pending: string; available: string; paid: string }>(
      req,
      sql`SELECT ${c.currency} AS currency,
            coalesce(sum(${c.amount}) FILTER (WHERE ${c.status} = 'held' OR (${c.status} = 'pending' AND ${c.availableAt} > now())), 0) AS pending,
            coalesce(sum(${c.amount}) FILTER (WHERE ${c.status} = 'pending' AND ${c.availableAt} <= now()), 0) AS available,
            coalesce(sum(${c.amount}) FILTER (WHERE ${c.status} = 'paid'), 0) AS paid
          FROM ${c} WHERE ${c.affiliate} = ${affiliate.id} GROUP BY ${c.currency} ORDER BY ${c.currency}`,
    ),
  ])
  return {
    code: affiliate.code,
    status: affiliate.status,
    rateBps: Number(affiliate.rate_bps),
    payoutEmail: affiliate.payout_email,
    link: affiliateLink(serverUrl, affiliate.code),
    clicks: Number(counts[0]?.clicks ?? 0),
    sales: Number(counts[0]?.sales ?? 0),
    commissions: money.map((row) => ({
      currency: row.currency,
      pending: Number(row.pending),
      available: Number(row.available),
      paid: Number(row.paid),
    })),
  }
}

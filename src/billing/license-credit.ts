import type { PayloadRequest } from 'payload'

import { relationId } from '../db/relations'
import type { SqlRow } from '../db/rows'
import { license_changes, one_time_purchases, releases } from '../db/schema.generated'
import { execute, sql } from '../db/transaction'

type SQL = ReturnType<typeof sql>
import type { License } from '../payload-types'

/**
 * What a payment paid before tax, net of refunds, in SQL: a refund takes tax back in proportion (as the
 * processor's tax reversals do), so what is left keeps the payment's share of tax. Unknown tax counts as
 * none here; `taxPending` says when that is the case.
 */
const netBeforeTax = (amount: SQL, refunded: SQL, tax: SQL) =>
  sql`CASE WHEN COALESCE(${amount}, 0) > 0
        THEN floor(GREATEST(0, ${amount} - COALESCE(${refunded}, 0))::numeric * GREATEST(0, ${amount} - COALESCE(${tax}, 0)) / ${amount})
        ELSE 0 END`

export type NetPaid = {
  /** Minor units, before tax, net of refunds. */
  amount: number
  currency: string | null
  /** A payment whose tax is not known yet (its checkout's event has not arrived): the amount may include tax. */
  taxPending: boolean
}

/**
 * What a license has paid for its plan before tax, net of refunds: its purchase, plus the upgrades applied
 * to it. Tax is the buyer's and the state's, not the seller's: an upgrade credits what the seller kept.
 * Renewals paid for updates, not for the plan, and do not count. Null currency when nothing was paid (a
 * license granted by staff). One statement.
 */
export const netPaidFor = async (
  req: PayloadRequest,
  license: Pick<License, 'id' | 'oneTimePurchase'>,
): Promise<NetPaid> => {
  const purchaseId = relationId(license.oneTimePurchase)
  const upgrades = sql`${license_changes.license} = ${license.id} AND ${license_changes.kind} = 'upgrade' AND ${license_changes.status} = 'applied'`
  const [row] = await execute<{
    purchase: string | null
    purchase_currency: string | null
    purchase_tax_pending: boolean | null
    upgrades: string | null
    upgrade_currency: string | null
    upgrade_tax_pending: boolean | null
  }>(
    req,
    sql`SELECT
          (SELECT ${netBeforeTax(sql`${one_time_purchases.amount}`, sql`${one_time_purchases.refundedAmount}`, sql`${one_time_purchases.taxAmount}`)} FROM ${one_time_purchases}
            WHERE ${one_time_purchases.id} = ${purchaseId} AND ${one_time_purchases.status} = 'succeeded') AS purchase,
          (SELECT ${one_time_purchases.currency} FROM ${one_time_purchases} WHERE ${one_time_purchases.id} = ${purchaseId}) AS purchase_currency,
          (SELECT ${one_time_purchases.taxAmount} IS NULL FROM ${one_time_purchases}
            WHERE ${one_time_purchases.id} = ${purchaseId} AND ${one_time_purchases.status} = 'succeeded') AS purchase_tax_pending,
          (SELECT sum(${netBeforeTax(sql`${license_changes.amount}`, sql`${license_changes.refundedAmount}`, sql`${license_changes.taxAmount}`)}) FROM ${license_changes}
            WHERE ${upgrades}) AS upgrades,
          (SELECT min(${license_changes.currency}) FROM ${license_changes} WHERE ${upgrades}) AS upgrade_currency,
          (SELECT bool_or(${license_changes.taxAmount} IS NULL AND COALESCE(${license_changes.amount}, 0) > 0) FROM ${license_changes} WHERE ${upgrades}) AS upgrade_tax_pending`,
  )
  return {
    amount: Number(row?.purchase ?? 0) + Number(row?.upgrades ?? 0),
    currency: row?.purchase_currency ?? row?.upgrade_currency ?? null,
    taxPending: Boolean(row?.purchase_tax_pending) || Boolean(row?.upgrade_tax_pending),
  }
}

/** Published releases with an archive (what a download can give), for deciding what a window opens. */
export const publishedReleases = (req: PayloadRequest, now: Date) =>
  // publishedAt: an alias; never null here (published_at <= now).
  execute<Pick<SqlRow<typeof releases>, 'version'> & { publishedAt: Date | string }>(
    req,
    sql`SELECT ${releases.version}, ${releases.publishedAt} AS "publishedAt" FROM ${releases}
        WHERE ${releases.publishedAt} <= ${now.toISOString()} AND ${releases.filename} IS NOT NULL`,
  )

import type { PayloadRequest } from 'payload'

import { relationId } from '../db/relations'
import { license_changes, one_time_purchases, releases } from '../db/schema.generated'
import { execute, sql } from '../db/transaction'
import type { License } from '../payload-types'

/**
 * What a license has paid for its plan, net of refunds: its purchase, plus the upgrades applied to it.
 * Renewals paid for updates, not for the plan, and do not count. Null currency when nothing was paid
 * (a license granted by staff). One statement.
 */
export const netPaidFor = async (req: PayloadRequest, license: Pick<License, 'id' | 'oneTimePurchase'>): Promise<{ amount: number; currency: string | null }> => {
  const purchaseId = relationId(license.oneTimePurchase)
  const [row] = await execute<{ purchase: string | null; purchase_currency: string | null; upgrades: string | null; upgrade_currency: string | null }>(
    req,
    sql`SELECT
          (SELECT GREATEST(0, COALESCE(${one_time_purchases.amount}, 0) - COALESCE(${one_time_purchases.refundedAmount}, 0)) FROM ${one_time_purchases}
            WHERE ${one_time_purchases.id} = ${purchaseId} AND ${one_time_purchases.status} = 'succeeded') AS purchase,
          (SELECT ${one_time_purchases.currency} FROM ${one_time_purchases} WHERE ${one_time_purchases.id} = ${purchaseId}) AS purchase_currency,
          (SELECT sum(GREATEST(0, COALESCE(${license_changes.amount}, 0) - COALESCE(${license_changes.refundedAmount}, 0))) FROM ${license_changes}
            WHERE ${license_changes.license} = ${license.id} AND ${license_changes.kind} = 'upgrade' AND ${license_changes.status} = 'applied') AS upgrades,
          (SELECT min(${license_changes.currency}) FROM ${license_changes}
            WHERE ${license_changes.license} = ${license.id} AND ${license_changes.kind} = 'upgrade' AND ${license_changes.status} = 'applied') AS upgrade_currency`,
  )
  return { amount: Number(row?.purchase ?? 0) + Number(row?.upgrades ?? 0), currency: row?.purchase_currency ?? row?.upgrade_currency ?? null }
}

/** Published releases with an archive (what a download can give), for deciding what a window opens. */
export const publishedReleases = (req: PayloadRequest, now: Date) =>
  execute<{ version: string; publishedAt: Date | string }>(
    req,
    sql`SELECT ${releases.version}, ${releases.publishedAt} AS "publishedAt" FROM ${releases}
        WHERE ${releases.publishedAt} <= ${now.toISOString()} AND ${releases.filename} IS NOT NULL`,
  )

import type { PayloadRequest } from 'payload'

import { iso, num, type Row } from '../db/rows'
import { licenses } from '../db/schema.generated'
import { bare, columnList, execute, sql } from '../db/transaction'
import type { License } from '../payload-types'

/**
 * License rows in plain SQL for the webhook's hot path (src/licensing/sync.ts), on the event's
 * transaction: one statement each where the Local API would write, read back and build both through
 * the ORM. The licenses' hooks act only on a staff override, which these writes never set.
 */

const LICENSE_COLUMNS = columnList(
  licenses.id,
  licenses.key,
  licenses.user,
  licenses.email,
  licenses.plan,
  licenses.source,
  licenses.oneTimePurchase,
  licenses.subscription,
  licenses.status,
  licenses.validUntil,
  licenses.override,
  licenses.overrideReason,
  licenses.grantedAt,
  licenses.revokedAt,
  licenses.revokedReason,
  licenses.revokedBy,
  licenses.emailSentAt,
  licenses.downloadCount,
  licenses.lastDownloadedAt,
  licenses.updatedAt,
  licenses.createdAt,
)

const licenseOf = (row: Row): License => ({
  id: Number(row.id),
  key: String(row.key),
  user: num(row.user_id),
  email: (row.email as string | null) ?? null,
  plan: Number(row.plan_id),
  source: row.source as License['source'],
  oneTimePurchase: num(row.one_time_purchase_id),
  subscription: num(row.subscription_id),
  status: row.status as License['status'],
  validUntil: iso(row.valid_until),
  override: (row.override as License['override']) ?? 'none',
  overrideReason: (row.override_reason as string | null) ?? null,
  grantedAt: iso(row.granted_at),
  revokedAt: iso(row.revoked_at),
  revokedReason: (row.revoked_reason as string | null) ?? null,
  revokedBy: num(row.revoked_by_id),
  emailSentAt: iso(row.email_sent_at),
  downloadCount: num(row.download_count),
  lastDownloadedAt: iso(row.last_downloaded_at),
  updatedAt: iso(row.updated_at)!,
  createdAt: iso(row.created_at)!,
})

/**
 * The license of a purchase or subscription, locked for the rest of the transaction (read and lock in
 * one statement): a staff override committed meanwhile is read, not overwritten.
 */
export const lockLicenseOf = async (
  req: PayloadRequest,
  source: 'one_time_purchases' | 'user_subscriptions',
  sourceId: number,
): Promise<License | null> => {
  const column = source === 'one_time_purchases' ? licenses.oneTimePurchase : licenses.subscription
  const [row] = await execute<Row>(req, sql`SELECT ${LICENSE_COLUMNS} FROM ${licenses} WHERE ${column} = ${sourceId} FOR UPDATE`)
  return row ? licenseOf(row) : null
}

export type LicenseInsert = Pick<License, 'key' | 'email' | 'source' | 'status' | 'validUntil' | 'grantedAt' | 'revokedAt' | 'revokedReason'> & {
  user: number | null
  plan: number
  oneTimePurchase: number | null
  subscription: number | null
}

export const insertLicense = async (req: PayloadRequest, data: LicenseInsert): Promise<License> => {
  const [row] = await execute<Row>(
    req,
    sql`INSERT INTO ${licenses}
          (${bare(licenses.key, licenses.user, licenses.email, licenses.plan, licenses.source, licenses.oneTimePurchase, licenses.subscription)},
           ${bare(licenses.status, licenses.validUntil, licenses.override, licenses.grantedAt, licenses.revokedAt, licenses.revokedReason)},
           ${bare(licenses.downloadCount, licenses.updatedAt, licenses.createdAt)})
        VALUES (${data.key}, ${data.user}, ${data.email ?? null}, ${data.plan}, ${data.source}, ${data.oneTimePurchase}, ${data.subscription},
          ${data.status}, ${data.validUntil ?? null}, 'none', ${data.grantedAt ?? null}, ${data.revokedAt ?? null}, ${data.revokedReason ?? null},
          0, now(), now())
        RETURNING ${LICENSE_COLUMNS}`,
  )
  return licenseOf(row!)
}

import type { PayloadRequest } from 'payload'

import { iso, num, type Row } from '../db/rows'
import { execute, sql } from '../db/transaction'
import type { License } from '../payload-types'

/**
 * License rows in plain SQL for the webhook's hot path (src/licensing/sync.ts), on the event's
 * transaction: one statement each where the Local API would write, read back and build both through
 * the ORM. The licenses' hooks act only on a staff override, which these writes never set.
 */

const LICENSE_COLUMNS = sql.raw(
  `id, key, user_id, email, plan_id, source, one_time_purchase_id, subscription_id, status, valid_until, override,
   override_reason, granted_at, revoked_at, revoked_reason, revoked_by_id, email_sent_at, download_count,
   last_downloaded_at, updated_at, created_at`,
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
  const column = sql.raw(source === 'one_time_purchases' ? 'one_time_purchase_id' : 'subscription_id')
  const [row] = await execute<Row>(req, sql`SELECT ${LICENSE_COLUMNS} FROM licenses WHERE ${column} = ${sourceId} FOR UPDATE`)
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
    sql`INSERT INTO licenses (key, user_id, email, plan_id, source, one_time_purchase_id, subscription_id, status, valid_until,
          override, granted_at, revoked_at, revoked_reason, download_count, updated_at, created_at)
        VALUES (${data.key}, ${data.user}, ${data.email ?? null}, ${data.plan}, ${data.source}, ${data.oneTimePurchase}, ${data.subscription},
          ${data.status}, ${data.validUntil ?? null}, 'none', ${data.grantedAt ?? null}, ${data.revokedAt ?? null}, ${data.revokedReason ?? null},
          0, now(), now())
        RETURNING ${LICENSE_COLUMNS}`,
  )
  return licenseOf(row!)
}

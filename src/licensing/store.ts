import type { PayloadRequest } from 'payload'

import { relationId } from '../db/relations'
import { iso, num, type SqlRow } from '../db/rows'
import { license_changes, licenses, plans, releases } from '../db/schema.generated'
import { run, statement } from '../db/statements'
import { bare, columnList, execute, type SQL, sql } from '../db/transaction'
import type { License } from '../payload-types'
import { announceNewLicense } from '../webhooks/collection-events'
import { endpointsWanting } from '../webhooks/emit'
import { queueCommunitySync } from './entitlement-changes'
import { openingWindow, type UpdateWindow } from './update-window'

/**
 * License rows in plain SQL for the webhook's hot path (src/licensing/sync.ts), on the event's
 * transaction: one statement each where the Local API would write, read back and build both through
 * the ORM. The licenses' hooks act only on a staff override, which these writes never set.
 *
 * The one place that writes the `licenses` table in SQL (tests/int/write-paths.test.ts): the insert
 * announces the license as the collection's hook does for a Payload create, and the other writes here
 * touch only bookkeeping columns no outbound event carries (the email's date, the download count).
 * Every other write goes through Payload, whose hooks send the events.
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
  licenses.updatePolicy,
  licenses.updatesMajor,
  licenses.updatesUntil,
  licenses.upgradedAt,
  licenses.seats,
  licenses.updatedAt,
  licenses.createdAt,
)

/** A row of LICENSE_COLUMNS: every column of the table. */
type LicenseRow = SqlRow<typeof licenses>

const licenseOf = (row: LicenseRow): License => ({
  id: Number(row.id),
  key: String(row.key),
  user: num(row.user_id),
  email: row.email,
  plan: Number(row.plan_id),
  source: row.source,
  oneTimePurchase: num(row.one_time_purchase_id),
  subscription: num(row.subscription_id),
  status: row.status,
  validUntil: iso(row.valid_until),
  override: row.override ?? 'none',
  overrideReason: row.override_reason,
  grantedAt: iso(row.granted_at),
  revokedAt: iso(row.revoked_at),
  revokedReason: row.revoked_reason,
  revokedBy: num(row.revoked_by_id),
  emailSentAt: iso(row.email_sent_at),
  downloadCount: num(row.download_count),
  lastDownloadedAt: iso(row.last_downloaded_at),
  updatePolicy: row.update_policy,
  updatesMajor: num(row.updates_major),
  updatesUntil: iso(row.updates_until),
  upgradedAt: iso(row.upgraded_at),
  seats: num(row.seats) ?? 1,
  updatedAt: iso(row.updated_at)!,
  createdAt: iso(row.created_at)!,
})

/** A license's update window as recorded on it (a license from before windows existed covers every release). */
export const windowOfLicense = (
  license: Pick<License, 'updatePolicy' | 'updatesMajor' | 'updatesUntil'>,
): UpdateWindow => ({
  policy: license.updatePolicy ?? 'lifetime',
  major: license.updatesMajor ?? null,
  until: license.updatesUntil ?? null,
})

/** A license by id, locked for the rest of the transaction (upgrades and renewals change it under this lock). */
export const lockLicense = async (req: PayloadRequest, id: number): Promise<License | null> => {
  const [row] = await execute<LicenseRow>(
    req,
    sql`SELECT ${LICENSE_COLUMNS} FROM ${licenses} WHERE ${licenses.id} = ${id} FOR UPDATE`,
  )
  return row ? licenseOf(row) : null
}

/**
 * The major version of the newest stable release published at `at` (1 when there is none), as SQL:
 * what a `major` window opens at (src/licensing/update-window.ts, newestStableMajor).
 */
const newestStableMajorSql = (at: SQL | string) =>
  sql`GREATEST(1, COALESCE((SELECT max(substring(${releases.version} from '^([0-9]+)[.]')::int) FROM ${releases}
        WHERE ${releases.prerelease} IS NOT TRUE AND ${releases.version} !~ '-' AND ${releases.publishedAt} <= ${at}), 1))`

/** The window a license of this plan opens at `at`, and the plan's policy: one statement. */
export const planWindow = async (req: PayloadRequest, planId: number, at: Date): Promise<UpdateWindow> => {
  const [row] = await execute<Pick<SqlRow<typeof plans>, 'update_policy' | 'update_months'> & { newest_major: number }>(
    req,
    sql`SELECT ${plans.updatePolicy}, ${plans.updateMonths}, ${newestStableMajorSql(at.toISOString())} AS newest_major FROM ${plans} WHERE ${plans.id} = ${planId}`,
  )
  if (!row) throw new Error(`plan ${planId} does not exist`)
  return openingWindow(
    { updatePolicy: row.update_policy ?? 'lifetime', updateMonths: num(row.update_months) },
    Number(row.newest_major),
    at,
  )
}

/** The license fields that record a window. */
export const windowFields = (window: UpdateWindow) => ({
  updatePolicy: window.policy,
  updatesMajor: window.major,
  updatesUntil: window.until,
})

/**
 * The license of a purchase or subscription, locked for the rest of the transaction (read and lock in
 * one statement): a staff override committed meanwhile is read, not overwritten. `changeDisputeOpen`:
 * a payment for one of its applied upgrades or renewals has an open chargeback (it suspends the license
 * as one on the purchase does), read in the same statement.
 */
export const lockLicenseOf = async (
  req: PayloadRequest,
  source: 'one_time_purchases' | 'user_subscriptions',
  sourceId: number,
): Promise<{ license: License; changeDisputeOpen: boolean } | null> => {
  const column = source === 'one_time_purchases' ? licenses.oneTimePurchase : licenses.subscription
  const [row] = await execute<LicenseRow & { change_dispute_open: boolean }>(
    req,
    sql`SELECT ${LICENSE_COLUMNS},
          EXISTS (SELECT 1 FROM ${license_changes} WHERE ${license_changes.license} = ${licenses.id} AND ${license_changes.status} = 'applied'
                  AND ${license_changes.disputeStatus} = 'open') AS change_dispute_open
        FROM ${licenses} WHERE ${column} = ${sourceId} FOR UPDATE OF ${licenses}`,
  )
  return row ? { license: licenseOf(row), changeDisputeOpen: row.change_dispute_open === true } : null
}

export type LicenseInsert = Pick<
  License,
  'key' | 'email' | 'source' | 'status' | 'validUntil' | 'grantedAt' | 'revokedAt' | 'revokedReason'
> & {
  user: number | null
  plan: number
  oneTimePurchase: number | null
  subscription: number | null
  /** People it covers, the buyer included (the checkout's quantity). */
  seats?: number
}

/**
 * A new license, its update window opened from its plan's policy in the same statement (no extra
 * round trip on the webhook's hot path): `major` up to the newest stable release's major at grant,
 * `months` the plan's months from grant.
 */
/** The license email went out: one column, so a claim that set the owner meanwhile keeps it. */
const MARK_EMAIL_SENT = statement<'id'>(
  (p) => sql`UPDATE ${licenses} SET ${bare(licenses.emailSentAt)} = now() WHERE ${licenses.id} = ${p.id}`,
)

export const markLicenseEmailSent = async (req: PayloadRequest, licenseId: number): Promise<void> => {
  await run(req, MARK_EMAIL_SENT, { id: licenseId })
}

/**
 * A download counted on its license, as a fragment of the statement that records the download
 * (src/delivery/download.ts: one round trip): `licenseId` is that statement's expression for the id.
 */
export const countLicenseDownloadSql = (licenseId: SQL) =>
  sql`UPDATE ${licenses} SET ${bare(licenses.downloadCount)} = COALESCE(${licenses.downloadCount}, 0) + 1, ${bare(licenses.lastDownloadedAt)} = now()
      WHERE ${licenses.id} = ${licenseId} RETURNING ${licenses.id}`

type LicenseInsertParam =
  | 'key'
  | 'user'
  | 'email'
  | 'plan'
  | 'source'
  | 'oneTimePurchase'
  | 'subscription'
  | 'status'
  | 'validUntil'
  | 'grantedAt'
  | 'revokedAt'
  | 'revokedReason'
  | 'seats'

const INSERT_LICENSE = statement<LicenseInsertParam, LicenseRow & { created_endpoints: number[] }>(
  (p) =>
    sql`WITH inserted AS (
          INSERT INTO ${licenses}
            (${bare(licenses.key, licenses.user, licenses.email, licenses.plan, licenses.source, licenses.oneTimePurchase, licenses.subscription)},
             ${bare(licenses.status, licenses.validUntil, licenses.override, licenses.grantedAt, licenses.revokedAt, licenses.revokedReason)},
             ${bare(licenses.updatePolicy, licenses.updatesMajor, licenses.updatesUntil)},
             ${bare(licenses.seats, licenses.downloadCount, licenses.updatedAt, licenses.createdAt)})
          SELECT ${p.key}, ${p.user}::integer, ${p.email}, ${p.plan}, ${p.source}, ${p.oneTimePurchase}::integer, ${p.subscription}::integer,
            ${p.status}, ${p.validUntil}::timestamptz, 'none', ${p.grantedAt}::timestamptz, ${p.revokedAt}::timestamptz, ${p.revokedReason},
            ${plans.updatePolicy}::text::enum_licenses_update_policy,
            CASE WHEN ${plans.updatePolicy} = 'major' THEN ${newestStableMajorSql(sql`${p.grantedAt}::timestamptz`)} END,
            CASE WHEN ${plans.updatePolicy} = 'months' THEN ${p.grantedAt}::timestamptz + make_interval(months => COALESCE(${plans.updateMonths}, 12)::int) END,
            ${p.seats}::integer, 0, now(), now()
          FROM ${plans} WHERE ${plans.id} = ${p.plan}::integer
          RETURNING ${LICENSE_COLUMNS})
        -- Who wants to hear of it (src/webhooks/emit.ts), asked in this statement.
        SELECT inserted.*, ${endpointsWanting(sql`'license.created'`)} AS created_endpoints FROM inserted`,
)

export const insertLicense = async (req: PayloadRequest, data: LicenseInsert): Promise<License> => {
  const grantedAt = data.grantedAt ?? new Date().toISOString()
  const [row] = await run(req, INSERT_LICENSE, {
    key: data.key,
    user: data.user,
    email: data.email ?? null,
    plan: data.plan,
    source: data.source,
    oneTimePurchase: data.oneTimePurchase,
    subscription: data.subscription,
    status: data.status,
    validUntil: data.validUntil ?? null,
    grantedAt,
    revokedAt: data.revokedAt ?? null,
    revokedReason: data.revokedReason ?? null,
    seats: data.seats ?? 1,
  })
  if (!row) throw new Error(`plan ${data.plan} does not exist: cannot grant a license`)
  const license = licenseOf(row)
  await announceNewLicense(req, license, row.created_endpoints)
  if (license.status === 'active') await queueCommunitySync(req, [relationId(license.user)])
  return license
}

import type { Payload, PayloadRequest } from 'payload'

import { iso, num, type SqlRow } from '../db/rows'
import { license_activations, licenses, plans } from '../db/schema.generated'
import { execute, inTransaction, sql } from '../db/transaction'
import type { ErrorCode } from '../http/error-sentences'
import { ServiceError } from '../http/errors'
import {
  ACTIVATION_COLUMNS,
  type ActivationRow,
  type ActivationView,
  activationViewOf as viewOf,
  type DeactivatedBy,
  endActivation,
  insertActivation,
} from '../licensing/activation-store'
import { lookupKey, type ValidationCode, validationCodeOf } from '../licensing/validate'
import { ownedLicense } from './seats'

/** Deactivations that count against a license in a rolling day: a limit that cannot be churned. */
export const DEACTIVATIONS_PER_DAY = 3
const DAY_MS = 24 * 3600 * 1000

type ActivationCounts = { used: number; limit: number | null }

/** Columns of a LEFT JOINed table: null when it matched no row. */
type Nullable<T> = { [K in keyof T]: T[K] | null }

/** A key that opens nothing answers as validation would: the same code, as an error an app branches on. */
const INVALID: Record<
  Exclude<ValidationCode, 'VALID' | 'NO_ACTIVATION'>,
  { status: number; code: ErrorCode; message: string }
> = {
  NOT_FOUND: { status: 404, code: 'license_not_found', message: 'No license has this key.' },
  SUSPENDED: {
    status: 403,
    code: 'license_suspended',
    message: 'This license is suspended while a chargeback is open.',
  },
  REVOKED: { status: 403, code: 'license_revoked', message: 'This license was revoked.' },
  EXPIRED: { status: 403, code: 'license_expired', message: 'This license has expired.' },
}

type KeyLicense = { id: number; maxActivations: number | null; key: string }

/**
 * The license behind `raw`, locked for the transaction (activations and deactivations of one license
 * run one at a time, so the limit is read and kept by one request at a time). Anything but a valid
 * license is refused with its validation code.
 */
const lockLicenseByKey = async (req: PayloadRequest, raw: string, now: Date): Promise<KeyLicense> => {
  const [row] = await execute<
    // LEFT JOIN plans: max_activations is nullable already.
    Pick<SqlRow<typeof licenses>, 'id' | 'key' | 'status' | 'valid_until'> &
      Pick<SqlRow<typeof plans>, 'max_activations'>
  >(
    req,
    sql`SELECT ${licenses.id}, ${licenses.key}, ${licenses.status}, ${licenses.validUntil}, ${plans.maxActivations}
        FROM ${licenses} LEFT JOIN ${plans} ON ${plans.id} = ${licenses.plan}
        WHERE ${licenses.key} = ${lookupKey(raw)} FOR UPDATE OF ${licenses}`,
  )
  const code: ValidationCode = row
    ? validationCodeOf({ status: row.status, validUntil: iso(row.valid_until) }, now)
    : 'NOT_FOUND'
  if (code !== 'VALID') {
    const refusal = INVALID[code as keyof typeof INVALID]
    throw new ServiceError(refusal.status, refusal.code, refusal.message, undefined, { validation: code })
  }
  return { id: row!.id, key: row!.key, maxActivations: num(row!.max_activations) }
}

const activeCount = async (req: PayloadRequest, licenseId: number): Promise<number> => {
  const [row] = await execute<{ count: string }>(
    req,
    sql`SELECT count(*) AS count FROM ${license_activations} WHERE ${license_activations.license} = ${licenseId} AND ${license_activations.deactivatedAt} IS NULL`,
  )
  return Number(row?.count ?? 0)
}

export type ActivationResult = { created: boolean; activation: ActivationView & { activations: ActivationCounts } }

/**
 * POST /api/licenses/activate: the key's installation `fingerprint` is activated. The same fingerprint
 * again is the same activation (200, its label kept). At the plan's limit: 409
 * `activation_limit_reached` with `{used, limit}`. Under the license's lock, so concurrent activations
 * never pass the limit.
 */
export const activate = (
  payload: Payload,
  input: { key: string; fingerprint: string; label?: string | null },
  now = new Date(),
): Promise<ActivationResult> =>
  inTransaction(payload, async (req) => {
    const license = await lockLicenseByKey(req, input.key, now)
    const [existing] = await execute<ActivationRow>(
      req,
      sql`SELECT ${ACTIVATION_COLUMNS} FROM ${license_activations}
          WHERE ${license_activations.license} = ${license.id} AND ${license_activations.fingerprint} = ${input.fingerprint} AND ${license_activations.deactivatedAt} IS NULL
          ORDER BY ${license_activations.id} LIMIT 1`,
    )
    const used = await activeCount(req, license.id)
    if (existing)
      return {
        created: false,
        activation: { ...viewOf(existing), activations: { used, limit: license.maxActivations } },
      }
    if (license.maxActivations !== null && used >= license.maxActivations) {
      throw new ServiceError(
        409,
        'activation_limit_reached',
        `This license is active on ${used} of ${license.maxActivations} installations. Deactivate one first.`,
        undefined,
        { used, limit: license.maxActivations },
      )
    }
    const activation = await insertActivation(req, {
      licenseId: license.id,
      fingerprint: input.fingerprint,
      label: input.label ?? null,
      now,
    })
    return {
      created: true,
      activation: { ...activation, activations: { used: used + 1, limit: license.maxActivations } },
    }
  })

/**
 * End one activation of the locked license `licenseId`. An activation of another license is 404
 * `activation_not_found`, as one that does not exist; an ended one is ended already (nothing counted).
 * The key's holder and the owner share DEACTIVATIONS_PER_DAY a rolling day (429 `deactivation_limit`
 * with Retry-After); staff are not counted.
 */
const deactivateOn = async (
  req: PayloadRequest,
  licenseId: number,
  activationId: number,
  by: DeactivatedBy,
  now: Date,
): Promise<void> => {
  const [activation] = await execute<Pick<SqlRow<typeof license_activations>, 'id' | 'deactivated_at'>>(
    req,
    sql`SELECT ${license_activations.id}, ${license_activations.deactivatedAt} FROM ${license_activations}
        WHERE ${license_activations.id} = ${activationId} AND ${license_activations.license} = ${licenseId}`,
  )
  if (!activation) throw new ServiceError(404, 'activation_not_found', 'This license has no activation with this id.')
  if (activation.deactivated_at !== null) return
  if (by !== 'staff') {
    const since = new Date(now.getTime() - DAY_MS).toISOString()
    const recent = await execute<Pick<SqlRow<typeof license_activations>, 'deactivated_at'>>(
      req,
      sql`SELECT ${license_activations.deactivatedAt} FROM ${license_activations}
          WHERE ${license_activations.license} = ${licenseId} AND ${license_activations.deactivatedAt} > ${since}
            AND ${license_activations.deactivatedBy} IN ('key', 'owner')
          ORDER BY ${license_activations.deactivatedAt} LIMIT ${DEACTIVATIONS_PER_DAY}`,
    )
    if (recent.length >= DEACTIVATIONS_PER_DAY) {
      const freedAt = new Date(iso(recent[0]!.deactivated_at)!).getTime() + DAY_MS
      const retryAfter = Math.max(1, Math.ceil((freedAt - now.getTime()) / 1000))
      throw new ServiceError(
        429,
        'deactivation_limit',
        `A license can be deactivated ${DEACTIVATIONS_PER_DAY} times a day. Try again in ${Math.ceil(retryAfter / 3600)} hours, or ask support.`,
        retryAfter,
      )
    }
  }
  await endActivation(req, { licenseId, activationId, by, now })
}

/** POST /api/licenses/deactivate {key, activationId}: the key is the credential. */
export const deactivateWithKey = (
  payload: Payload,
  input: { key: string; activationId: number },
  now = new Date(),
): Promise<void> =>
  inTransaction(payload, async (req) => {
    const license = await lockLicenseByKey(req, input.key, now)
    await deactivateOn(req, license.id, input.activationId, 'key', now)
  })

/** The owner's Deactivate button (a session): their own license only (a member 403, anyone else 404), the same daily limit. */
export const deactivateAsOwner = (
  payload: Payload,
  userId: number,
  licenseId: number,
  activationId: number,
  now = new Date(),
): Promise<void> =>
  inTransaction(payload, async (req) => {
    await ownedLicense(req, { id: userId }, licenseId, { lock: true })
    await deactivateOn(req, licenseId, activationId, 'owner', now)
  })

/** Support removes an activation (not counted against the customer's daily limit); returns its license. */
export const removeActivationByStaff = async (req: PayloadRequest, activationId: number, now = new Date()) => {
  const [row] = await execute<
    Pick<SqlRow<typeof license_activations>, 'license_id' | 'deactivated_at' | 'fingerprint'>
  >(
    req,
    sql`SELECT ${license_activations.license}, ${license_activations.deactivatedAt}, ${license_activations.fingerprint} FROM ${license_activations}
        WHERE ${license_activations.id} = ${activationId}`,
  )
  if (!row) throw new ServiceError(404, 'activation_not_found', 'There is no activation with this id.')
  if (row.deactivated_at !== null)
    throw new ServiceError(409, 'activation_already_removed', 'This activation was removed already.')
  await execute(req, sql`SELECT 1 FROM ${licenses} WHERE ${licenses.id} = ${row.license_id} FOR UPDATE`)
  await deactivateOn(req, row.license_id, activationId, 'staff', now)
  return { licenseId: row.license_id, fingerprint: row.fingerprint }
}

/** A license's live activations and its plan's limit (the owner's dashboard; the caller checked ownership). */
export const activationsOf = async (
  payload: Payload,
  licenseId: number,
  req?: PayloadRequest,
): Promise<{ limit: number | null; activations: ActivationView[] }> => {
  // LEFT JOIN license_activations: a license without a live activation gives one row of nulls.
  const rows = await execute<Nullable<ActivationRow> & Pick<SqlRow<typeof plans>, 'max_activations'>>(
    req ?? ({ payload } as PayloadRequest),
    sql`SELECT ${ACTIVATION_COLUMNS}, ${plans.maxActivations}
        FROM ${licenses} JOIN ${plans} ON ${plans.id} = ${licenses.plan}
        LEFT JOIN ${license_activations} ON ${license_activations.license} = ${licenses.id} AND ${license_activations.deactivatedAt} IS NULL
        WHERE ${licenses.id} = ${licenseId}
        ORDER BY ${license_activations.createdAt} DESC NULLS LAST`,
  )
  return {
    limit: num(rows[0]?.max_activations ?? null),
    activations: rows.filter((row): row is ActivationRow & typeof row => row.id !== null).map(viewOf),
  }
}

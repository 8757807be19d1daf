import type { PayloadRequest } from 'payload'

import { license_activations, licenses, plans, plans_feature_access } from '../db/schema.generated'
import type { SqlRow } from '../db/rows'
import { bare, execute, isoTimestamp, sql } from '../db/transaction'
import { type FeatureKey, isFeatureKey } from '../plans/features'
import { LICENSE_KEY_PATTERN } from './keys'
import { touchActivation } from './activation-store'
import type { LicenseStatus } from './status'
import { describeWindow } from './update-window'

/**
 * NO_ACTIVATION: the license is valid, but its plan limits activations and the fingerprint sent (or
 * none) is not activated (src/teams/activations.ts).
 */
export type ValidationCode = 'VALID' | 'NOT_FOUND' | 'SUSPENDED' | 'REVOKED' | 'EXPIRED' | 'NO_ACTIVATION'

export type LicenseValidation = {
  code: ValidationCode
  /** The stored key (null for NOT_FOUND). */
  key: string | null
  /** The plan's slug (null for NOT_FOUND). */
  plan: string | null
  /** The plan's feature keys while the license is valid; empty otherwise. */
  features: FeatureKey[]
  /** When the license stops (ISO 8601); null for a perpetual license and for NOT_FOUND. */
  validUntil: string | null
  /**
   * Which releases it may update to, while the license is valid; null otherwise. A license outside its window stays VALID:
   * the kit keeps working; only newer downloads are locked.
   */
  updates: ReturnType<typeof describeWindow> | null
  /** Whether the plan limits activations: its certificates then live at most ACTIVATION_CERTIFICATE_TTL_SECONDS. */
  limitsActivations: boolean
}

const NOT_FOUND: LicenseValidation = {
  code: 'NOT_FOUND',
  key: null,
  plan: null,
  features: [],
  validUntil: null,
  updates: null,
  limitsActivations: false,
}

/** Longer than any key with room for stray spaces: anything longer is malformed without more work. */
const MAX_KEY_LENGTH = 64
/** Not a key a license can have (I and L are not in the keys' alphabet), looked up for malformed input. */
const NO_SUCH_KEY = 'KIT-INVALID'

/** Keys are read aloud and pasted: surrounding spaces and lower case are forgiven. */
export const lookupKey = (raw: string): string => {
  if (raw.length > MAX_KEY_LENGTH) return NO_SUCH_KEY
  const key = raw.trim().toUpperCase()
  return LICENSE_KEY_PATTERN.test(key) ? key : NO_SUCH_KEY
}

/**
 * Why a license is or is not valid now. Every status is mapped explicitly; an active license past its
 * validity end (a lapse the scheduled job has not marked yet) is already EXPIRED.
 */
export const validationCodeOf = (
  license: { status: LicenseStatus; validUntil?: string | null },
  now: Date,
): ValidationCode => {
  switch (license.status) {
    case 'active':
      return license.validUntil && new Date(license.validUntil).getTime() <= now.getTime() ? 'EXPIRED' : 'VALID'
    case 'suspended':
      return 'SUSPENDED'
    case 'revoked':
      return 'REVOKED'
    case 'expired':
      return 'EXPIRED'
    default: {
      const unmapped: never = license.status
      throw new Error(`unmapped license status ${String(unmapped)}`)
    }
  }
}

type ValidationRow = Pick<
  SqlRow<typeof licenses>,
  'key' | 'status' | 'valid_until' | 'update_policy' | 'updates_major' | 'updates_until'
> &
  Pick<SqlRow<typeof plans>, 'max_activations'> & {
    // LEFT JOINs: the plan and the fingerprint's live activation may be missing.
    slug: string | null
    features: string[] | null
    activation_id: number | null
    last_validated_at: Date | string | null
  }

/** An activation's "last validated" is written at most this often: validation stays one statement nearly always. */
const LAST_VALIDATED_EVERY_MS = 3600 * 1000

/**
 * The license behind a key and why it is (not) valid. One statement by the unique key index whatever
 * the input (a malformed key looks up a key no license has), with only the plan's slug, feature keys,
 * activation limit and the fingerprint's live activation joined in (and, at most hourly per
 * activation, a second one recording when it was last validated).
 */
export const validateLicenseKey = async (
  req: PayloadRequest,
  raw: string,
  now: Date = new Date(),
  fingerprint?: string,
): Promise<LicenseValidation> => {
  const [license] = await execute<ValidationRow>(
    req,
    sql`SELECT ${licenses.key}, ${licenses.status}, ${licenses.validUntil}, ${licenses.updatePolicy}, ${licenses.updatesMajor}, ${licenses.updatesUntil}, ${plans.slug},
          ARRAY(SELECT ${plans_feature_access.value}::text FROM ${plans_feature_access}
                WHERE ${plans_feature_access.parent} = ${plans.id} ORDER BY ${plans_feature_access.order}) AS features,
          ${plans.maxActivations}, activation.id AS activation_id, activation.last_validated_at
        FROM ${licenses} LEFT JOIN ${plans} ON ${plans.id} = ${licenses.plan}
        LEFT JOIN LATERAL (SELECT ${bare(license_activations.id, license_activations.lastValidatedAt)} FROM ${license_activations}
          WHERE ${license_activations.license} = ${licenses.id} AND ${license_activations.fingerprint} = ${fingerprint ?? null} AND ${license_activations.deactivatedAt} IS NULL
          ORDER BY ${license_activations.id} LIMIT 1) AS activation ON true
        WHERE ${licenses.key} = ${lookupKey(raw)}`,
  )
  if (!license) return NOT_FOUND
  const validUntil = isoTimestamp(license.valid_until)
  const standing = validationCodeOf({ status: license.status, validUntil }, now)
  // A plan with an activation limit validates only an activated installation.
  const limited = license.max_activations !== null && license.max_activations !== undefined
  const code: ValidationCode =
    standing === 'VALID' && limited && license.activation_id === null ? 'NO_ACTIVATION' : standing
  if (code === 'VALID' && license.activation_id !== null) {
    const last = license.last_validated_at ? new Date(license.last_validated_at).getTime() : 0
    if (now.getTime() - last >= LAST_VALIDATED_EVERY_MS) {
      await touchActivation(req, license.activation_id, now)
    }
  }
  return {
    code,
    key: license.key,
    plan: license.slug,
    features: code === 'VALID' ? (license.features ?? []).filter(isFeatureKey) : [],
    validUntil,
    limitsActivations: limited,
    // Like the features: what a valid license opens (an invalid one opens nothing, updates included).
    updates:
      code === 'VALID'
        ? describeWindow({
            policy: license.update_policy ?? 'lifetime',
            major: license.updates_major === null ? null : Number(license.updates_major),
            until: isoTimestamp(license.updates_until),
          })
        : null,
  }
}

/** What a paid change to an existing license is (collections/LicenseChanges.ts). */
export const LICENSE_CHANGE_KINDS = ['upgrade', 'renewal'] as const
type LicenseChangeKind = (typeof LICENSE_CHANGE_KINDS)[number]

/** A change's payment: pending until paid; then applied, or refused and refunded; reversed by a refund or a lost chargeback. */
export const LICENSE_CHANGE_STATUSES = ['pending', 'applied', 'refused', 'reversed', 'failed'] as const

/** Why a paid change was refused (and refunded in full): the `reason` column's vocabulary. */
export type RefusalReason =
  | 'license_not_found'
  | 'not_the_owner'
  | 'license_not_active'
  | 'already_upgraded'
  | 'plan_changed'
  | 'credit_changed'
  | 'nothing_to_renew'

/**
 * The checkout metadata that marks a payment as a change of an existing license, next to the usual
 * `user_id`, `plan_id`, `price_id` and `billing_cycle` (docs/LICENSING.md). The service writes it;
 * the webhook still checks the license's owner against `user_id`.
 */
export const CHANGE_METADATA = {
  upgrade: 'upgrade_license_id',
  renewal: 'renewal_license_id',
  /** Upgrades: the plan the license was on when the checkout was made, and the credit given for it. */
  fromPlan: 'upgrade_from_plan',
  credit: 'upgrade_credit',
} as const

export type LicenseChangeRef = { kind: LicenseChangeKind; licenseId: number | null }

/** The license change a payment's metadata asks for, or null for an ordinary purchase. */
export const licenseChangeOf = (metadata: Record<string, string> | null | undefined): LicenseChangeRef | null => {
  const upgrade = metadata?.[CHANGE_METADATA.upgrade]
  const renewal = metadata?.[CHANGE_METADATA.renewal]
  const raw = upgrade ?? renewal
  if (raw === undefined) return null
  const id = /^[1-9][0-9]{0,15}$/.test(raw) ? Number(raw) : null
  return { kind: upgrade !== undefined ? 'upgrade' : 'renewal', licenseId: id }
}

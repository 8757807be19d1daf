/** Where an abandoned checkout stands (collections/RecoveryCollections.ts). */
export const RECOVERY_STATUSES = ['waiting', 'emailed', 'not_sent', 'recovered'] as const

/** Why no recovery email went out: decided when the checkout expired, or when the email was due. */
export const RECOVERY_REASONS = [
  'recovery_off',
  'no_recovery_link',
  'no_consent',
  'no_email',
  'paid_since',
  'unsubscribed',
  'recently_emailed',
  'link_expired',
] as const
export type RecoveryReason = (typeof RECOVERY_REASONS)[number]

/** CHECKOUT_RECOVERY and its timings (src/config/env.ts). */
export type RecoverySettings = {
  enabled: boolean
  checkoutExpiresHours: number
  emailDelayMinutes: number
  minIntervalDays: number
}

export const DEFAULT_RECOVERY: RecoverySettings = {
  enabled: true,
  checkoutExpiresHours: 23,
  emailDelayMinutes: 60,
  minIntervalDays: 7,
}

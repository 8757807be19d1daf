/** An affiliate's standing: applied, approved (earning), or stopped by an admin. */
export const AFFILIATE_STATUSES = ['pending', 'active', 'disabled'] as const

/** A commission earned on a payment, or an adjustment after a refund of one already paid out. */
export const COMMISSION_KINDS = ['commission', 'adjustment'] as const

/**
 * Stored states of a commission. "Available" is not stored: a pending one is available once its
 * `availableAt` has passed (evaluated when read).
 */
export const COMMISSION_STATUSES = ['pending', 'held', 'void', 'paid'] as const
export type CommissionStatus = (typeof COMMISSION_STATUSES)[number]

/** AFFILIATE_* (src/config/env.ts). */
export type AffiliateSettings = {
  commissionBps: number
  autoApprove: boolean
  cookieDays: number
  holdDays: number
  recurringMonths: number
}

/** The referral cookie the host sets for a visit through an affiliate's link. */
export const REFERRAL_COOKIE = 'kit_ref'

/** An affiliate's code: 3 to 32 of a-z, 0-9 and -, after lowercasing. */
export const AFFILIATE_CODE = /^[a-z0-9-]{3,32}$/

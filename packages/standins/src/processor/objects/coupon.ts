import type Stripe from 'stripe'

import type { Processor } from '../context'
import { fromFixture } from '../fixtures'
import { nowSeconds } from '../ids'

export type CouponFields = {
  id: string
  amountOff: number | null
  percentOff: number | null
  currency: string | null
  duration: Stripe.Coupon.Duration
  durationInMonths: number | null
  maxRedemptions: number | null
  redeemBy: number | null
  name: string | null
  metadata: Stripe.Metadata
}

/** A new coupon: never redeemed yet, so valid. */
export const buildCoupon = (processor: Processor, fields: CouponFields): Stripe.Coupon =>
  fromFixture<Stripe.Coupon>('coupon', {
    id: fields.id,
    amount_off: fields.amountOff,
    created: nowSeconds(),
    currency: fields.currency,
    duration: fields.duration,
    duration_in_months: fields.durationInMonths,
    livemode: processor.livemode,
    max_redemptions: fields.maxRedemptions,
    metadata: fields.metadata,
    name: fields.name,
    percent_off: fields.percentOff,
    redeem_by: fields.redeemBy,
    times_redeemed: 0,
    valid: true,
  })

export const buildDeletedCoupon = (id: string): Stripe.DeletedCoupon =>
  fromFixture<Stripe.DeletedCoupon>('deleted_coupon', { id })

/**
 * What a coupon takes off a subtotal: `amount_off` at most the subtotal, `percent_off` rounded to the
 * currency's smallest unit (half up, as Math.round). The rounding of `toFixed` keeps 14900 × 25.5% at
 * 3800 whatever the floating-point error of the product.
 */
export const discountOn = (coupon: Stripe.Coupon, subtotal: number): number => {
  if (coupon.amount_off !== null) return Math.min(coupon.amount_off, subtotal)
  const percent = coupon.percent_off ?? 0
  return Math.min(subtotal, Math.round(Number(((subtotal * percent) / 100).toFixed(6))))
}

import type Stripe from 'stripe'

import type { Processor } from './context'
import { invalidRequest, parameterMissing } from './errors'
import { daysFrom, newCouponId, nowSeconds } from './ids'
import { buildCoupon } from './objects/coupon'
import { decimal, integer, metadata, nonEmptyText, type Params } from './params'
import { refreshCouponValidity } from './state'

const DURATIONS = ['forever', 'once', 'repeating'] as const

/** Stripe's cap on `redeem_by`: at most five years ahead. */
const FIVE_YEARS_DAYS = 5 * 365 + 1

const atLeastOne = (value: number | undefined, param: string): void => {
  if (value !== undefined && value < 1) {
    throw invalidRequest('This value must be greater than or equal to 1.', { param })
  }
}

/** `amount_off` with its `currency`, or `percent_off`: exactly one of them. */
const readAmount = (params: Params) => {
  const amountOff = integer(params.amount_off, 'amount_off')
  const percentOff = decimal(params.percent_off, 'percent_off')
  if (amountOff !== undefined && percentOff !== undefined) {
    throw invalidRequest('You may only specify one of these parameters: amount_off, percent_off.', {
      param: 'amount_off',
    })
  }
  if (amountOff === undefined && percentOff === undefined) {
    throw invalidRequest('You must pass either `percent_off` or `amount_off`.')
  }
  atLeastOne(amountOff, 'amount_off')
  if (percentOff !== undefined && (percentOff <= 0 || percentOff > 100)) {
    throw invalidRequest('This value must be greater than 0 and less than or equal to 100.', { param: 'percent_off' })
  }
  const currency = nonEmptyText(params.currency)?.toLowerCase()
  if (currency !== undefined && !/^[a-z]{3}$/.test(currency)) {
    throw invalidRequest(`Invalid currency: ${currency}`, { param: 'currency' })
  }
  if (amountOff !== undefined && currency === undefined) throw parameterMissing('currency')
  return { amountOff: amountOff ?? null, percentOff: percentOff ?? null, currency: currency ?? null }
}

/** `duration` (default `once`) and `duration_in_months`, which only a `repeating` coupon has and must have. */
const readDuration = (params: Params) => {
  const given = nonEmptyText(params.duration) ?? 'once'
  const duration = DURATIONS.find((candidate) => candidate === given)
  if (!duration)
    throw invalidRequest('Invalid duration: must be one of forever, once, or repeating', { param: 'duration' })
  const months = integer(params.duration_in_months, 'duration_in_months')
  if (duration === 'repeating' && months === undefined) throw parameterMissing('duration_in_months')
  if (duration !== 'repeating' && months !== undefined) {
    throw invalidRequest('`duration_in_months` can only be used with `duration: repeating`.', {
      param: 'duration_in_months',
    })
  }
  atLeastOne(months, 'duration_in_months')
  return { duration, durationInMonths: months ?? null }
}

const readRedeemBy = (params: Params): number | null => {
  const redeemBy = integer(params.redeem_by, 'redeem_by')
  if (redeemBy === undefined) return null
  const now = nowSeconds()
  if (redeemBy <= now) throw invalidRequest('`redeem_by` must be in the future.', { param: 'redeem_by' })
  if (redeemBy > daysFrom(now, FIVE_YEARS_DAYS)) {
    throw invalidRequest('`redeem_by` cannot be more than 5 years in the future.', { param: 'redeem_by' })
  }
  return redeemBy
}

/** `POST /v1/coupons`. */
export const createCoupon = (processor: Processor, params: Params): Stripe.Coupon => {
  const id = nonEmptyText(params.id) ?? newCouponId()
  if (processor.state.coupons.has(id)) {
    throw invalidRequest('Coupon already exists.', { param: 'id', code: 'resource_already_exists' })
  }
  const maxRedemptions = integer(params.max_redemptions, 'max_redemptions')
  atLeastOne(maxRedemptions, 'max_redemptions')
  const coupon = buildCoupon(processor, {
    id,
    ...readAmount(params),
    ...readDuration(params),
    maxRedemptions: maxRedemptions ?? null,
    redeemBy: readRedeemBy(params),
    name: nonEmptyText(params.name) ?? null,
    metadata: metadata(params.metadata),
  })
  processor.state.coupons.set(coupon.id, coupon)
  return coupon
}

/** The refusal of a coupon that cannot be redeemed any more: used up, past `redeem_by`, or deleted. */
export const couponNoLongerValid = (id: string) =>
  invalidRequest(`Coupon ${id} is no longer valid.`, { param: 'discounts[0][coupon]', code: 'coupon_expired' })

/** A redemption: at `max_redemptions` the coupon stops being valid. */
export const redeemCoupon = (coupon: Stripe.Coupon): void => {
  coupon.times_redeemed += 1
  refreshCouponValidity(coupon)
}

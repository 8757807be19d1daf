import crypto from 'node:crypto'

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'

/** 24 random letters and digits after the resource's prefix, like `cus_…` or `cs_test_…`. */
export const newId = (prefix: string): string => {
  const bytes = crypto.randomBytes(24)
  let suffix = ''
  for (const byte of bytes) suffix += ALPHABET[byte % ALPHABET.length]
  return `${prefix}_${suffix}`
}

/** A coupon's generated ID: 8 letters and digits without a prefix, like Stripe's `Z4OV52SU`. */
export const newCouponId = (): string => {
  let id = ''
  for (const byte of crypto.randomBytes(8)) id += ALPHABET[byte % ALPHABET.length]
  return id
}

export const nowSeconds = (): number => Math.floor(Date.now() / 1000)

const DAY_SECONDS = 24 * 60 * 60

export const daysFrom = (seconds: number, days: number): number => seconds + days * DAY_SECONDS

/** Calendar arithmetic like Stripe's billing cycles: Jan 31 + 1 month is the end of February. */
export const addInterval = (seconds: number, interval: string, count = 1): number => {
  if (interval === 'day') return daysFrom(seconds, count)
  if (interval === 'week') return daysFrom(seconds, 7 * count)
  if (interval !== 'month' && interval !== 'year') throw new Error(`unknown billing interval '${interval}'`)
  const start = new Date(seconds * 1000)
  const months = interval === 'year' ? 12 * count : count
  const target = new Date(start)
  target.setUTCDate(1)
  target.setUTCMonth(target.getUTCMonth() + months)
  const lastDay = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate()
  target.setUTCDate(Math.min(start.getUTCDate(), lastDay))
  return Math.floor(target.getTime() / 1000)
}

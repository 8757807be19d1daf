type PricedPlan = {
  isFree?: boolean | null
  billing?: string | null
  monthlyPrice: number
  yearlyPrice?: number | null
}

/** Plans are priced in US dollars (the processor's prices are USD); amounts are whole dollars. */
export const PLAN_CURRENCY = 'USD'

/** "$149", "$29": Intl's currency format, without cents when the amount is whole. */
export const formatMoney = (amount: number, currency = PLAN_CURRENCY): string =>
  new Intl.NumberFormat('en-US', {
    style: 'currency',
    currency,
    maximumFractionDigits: Number.isInteger(amount) ? 0 : 2,
  }).format(amount)

/**
 * An amount in the currency's minor unit, as the processor counts it (cents; but yen have none and
 * dinars have thousandths): "$150", "$99.50", "¥1,500". Whole amounts lose their zeros, like plan prices.
 */
export const formatMinorAmount = (amount: number, currency: string, options: { keepZeros?: boolean } = {}): string => {
  const code = currency.toUpperCase()
  const digits =
    new Intl.NumberFormat('en-US', { style: 'currency', currency: code }).resolvedOptions().maximumFractionDigits ?? 2
  const major = amount / 10 ** digits
  return options.keepZeros
    ? new Intl.NumberFormat('en-US', { style: 'currency', currency: code }).format(major)
    : formatMoney(major, code)
}

/** What paying yearly saves against twelve months, in whole percent; null when it saves nothing. */
export const yearlySaving = (plan: PricedPlan): number | null => {
  if (!plan.yearlyPrice || plan.monthlyPrice <= 0) return null
  const saving = Math.round((1 - plan.yearlyPrice / (plan.monthlyPrice * 12)) * 100)
  return saving > 0 ? saving : null
}

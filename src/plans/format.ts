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
  new Intl.NumberFormat('en-US', { style: 'currency', currency, maximumFractionDigits: Number.isInteger(amount) ? 0 : 2 }).format(amount)

/** What paying yearly saves against twelve months, in whole percent; null when it saves nothing. */
export const yearlySaving = (plan: PricedPlan): number | null => {
  if (!plan.yearlyPrice || plan.monthlyPrice <= 0) return null
  const saving = Math.round((1 - plan.yearlyPrice / (plan.monthlyPrice * 12)) * 100)
  return saving > 0 ? saving : null
}

type PricedPlan = {
  isFree?: boolean | null
  billing?: string | null
  monthlyPrice: number
  yearlyPrice?: number | null
}

const dollars = (amount: number) =>
  new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', maximumFractionDigits: 0 }).format(amount)

/** The price line of the pricing page: "Free", "$149 once", "$29/month or $290/year". */
export const formatPlanPrice = (plan: PricedPlan): string => {
  if (plan.isFree) return 'Free'
  if (plan.billing === 'lifetime') return `${dollars(plan.monthlyPrice)} once`
  const monthly = `${dollars(plan.monthlyPrice)}/month`
  return plan.yearlyPrice ? `${monthly} or ${dollars(plan.yearlyPrice)}/year` : monthly
}

/** Stripe amounts are in the currency's smallest unit; Intl knows how many digits each currency has. */
export const formatAmount = (amount: number, currency: string): string => {
  const format = new Intl.NumberFormat('en-US', { style: 'currency', currency: currency.toUpperCase() })
  const digits = format.resolvedOptions().maximumFractionDigits ?? 2
  return format.format(amount / 10 ** digits)
}

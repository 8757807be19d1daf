/**
 * Words and numbers of the staff insights' charts (issue 27): shared by the server-rendered panel and the
 * client charts, so nothing here may import server code.
 */
const counts = new Intl.NumberFormat('en-US')
const percents = new Intl.NumberFormat('en-US', { style: 'percent', maximumFractionDigits: 1 })
const shortDays = new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric', timeZone: 'UTC' })
const mediumDays = new Intl.DateTimeFormat('en-US', {
  month: 'short',
  day: 'numeric',
  year: 'numeric',
  timeZone: 'UTC',
})
const longDays = new Intl.DateTimeFormat('en-US', {
  weekday: 'short',
  month: 'short',
  day: 'numeric',
  year: 'numeric',
  timeZone: 'UTC',
})

const utc = (day: string) => new Date(`${day}T00:00:00.000Z`)

export const formatCount = (value: number): string => counts.format(value)

/** "25%", "12.5%"; "n/a" when there is nothing to divide by. */
export const formatRate = (part: number, whole: number): string => (whole > 0 ? percents.format(part / whole) : 'n/a')

/** "Nov 23": an axis tick. */
export const formatShortDay = (day: string): string => shortDays.format(utc(day))

/** "Mon, Nov 23, 2026": a tooltip's title and a table's row header. */
export const formatLongDay = (day: string): string => longDays.format(utc(day))

/** "Nov 1 to Nov 30, 2026": a range in words. */
export const formatRange = (from: string, to: string): string =>
  `${formatShortDay(from)} to ${mediumDays.format(utc(to))}`

/** A currency's code as a seller reads it: "USD". */
export const currencyLabel = (currency: string): string => currency.toUpperCase()

type AmountFormat = { format: (minor: number) => string }

const amountFormat = (currency: string, options: Intl.NumberFormatOptions): AmountFormat => {
  try {
    const format = new Intl.NumberFormat('en-US', { ...options, style: 'currency', currency: currency.toUpperCase() })
    // Minor units per major unit come from the currency itself: cents for USD, none for JPY.
    const digits =
      new Intl.NumberFormat('en-US', { style: 'currency', currency: currency.toUpperCase() }).resolvedOptions()
        .maximumFractionDigits ?? 2
    return { format: (minor) => format.format(minor / 10 ** digits) }
  } catch {
    // Not an ISO 4217 code: the raw minor amount, grouped, rather than a broken dashboard.
    return { format: (minor) => `${counts.format(minor)} ${currency}` }
  }
}

/** An amount in the currency's minor unit: 123456 usd → "$1,234.56", 5000 jpy → "¥5,000". */
export const formatAmount = (minor: number, currency: string): string => amountFormat(currency, {}).format(minor)

/** An axis tick's amount, short: 123456 usd → "$1.2K". */
export const formatAxisAmount = (minor: number, currency: string): string =>
  amountFormat(currency, { notation: 'compact', maximumFractionDigits: 1 }).format(minor)

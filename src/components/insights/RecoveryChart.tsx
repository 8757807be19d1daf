'use client'

import { Bar, BarChart, CartesianGrid, Legend, Tooltip, XAxis, YAxis } from 'recharts'

import type { RecoveryRow } from '../../staff/insights-types'
import { dayAxisProps, gridProps, legendProps, tooltipProps, valueAxisProps } from './chart-style'
import { byDay, keysOf, rowsOf, sum, totalsByDay } from './data'
import { Chart, Figure, Numbers, Summary } from './Figure'
import { currencyLabel, formatAmount, formatCount, formatLongDay, formatRange } from './format'

type Props = { from: string; to: string; days: string[]; rows: RecoveryRow[]; csvHref: string }

/** Abandoned checkouts each day: expired, emailed, recovered (counts on the chart), and what the recovered ones paid. */
export const RecoveryChart = ({ from, to, days, rows, csvHref }: Props) => {
  const currencies = keysOf(rows, (row) => row.currency)
  const counts = totalsByDay(days, rows, ['expired', 'emailed', 'recovered'])
  const revenue = byDay(
    days,
    rows,
    (row) => row.currency,
    (row) => row.recoveredRevenue,
  )
  const revenueOf = (currency: string) =>
    formatAmount(
      sum(
        rowsOf(rows, (row) => row.currency, currency),
        (row) => row.recoveredRevenue,
      ),
      currency,
    )
  const expired = sum(rows, (row) => row.expired)
  const emailed = sum(rows, (row) => row.emailed)
  const recovered = sum(rows, (row) => row.recovered)
  const revenueWords = currencies.length > 0 ? currencies.map(revenueOf).join(' and ') : formatAmount(0, 'usd')
  const totals = `${formatCount(expired)} expired, ${formatCount(emailed)} emailed, ${formatCount(recovered)} recovered (${revenueWords})`
  return (
    <Figure
      csvHref={csvHref}
      description="Checkouts left unpaid until they expired, the recovery emails sent for them, and those paid after all through the email's link."
      empty={rows.length === 0 ? 'No abandoned checkouts in this range.' : null}
      title="Checkout recovery"
    >
      <Summary>{totals}.</Summary>
      <Chart label={`Checkout recovery per day, ${formatRange(from, to)}: ${totals}.`}>
        <BarChart data={counts} accessibilityLayer={false}>
          <CartesianGrid {...gridProps} />
          <XAxis {...dayAxisProps} />
          <YAxis {...valueAxisProps(formatCount)} />
          <Tooltip {...tooltipProps(formatCount)} />
          <Legend {...legendProps} />
          <Bar dataKey="expired" fill="var(--theme-elevation-400)" name="Expired" />
          <Bar dataKey="emailed" fill="var(--theme-warning-600)" name="Emailed" />
          <Bar dataKey="recovered" fill="var(--theme-success-600)" name="Recovered" />
        </BarChart>
      </Chart>
      <Numbers
        caption={`Checkout recovery per day, ${formatRange(from, to)}`}
        columns={[
          'Day',
          'Expired',
          'Emailed',
          'Recovered',
          ...currencies.map((currency) => `Recovered revenue, ${currencyLabel(currency)}`),
        ]}
        of="checkout recovery"
        rows={counts.map((day, at) => ({
          key: day.day,
          header: formatLongDay(day.day),
          cells: [
            formatCount(day.expired),
            formatCount(day.emailed),
            formatCount(day.recovered),
            ...currencies.map((currency) => formatAmount(revenue[at]?.values[currency] ?? 0, currency)),
          ],
        }))}
        total={{
          key: 'total',
          header: 'Total',
          cells: [formatCount(expired), formatCount(emailed), formatCount(recovered), ...currencies.map(revenueOf)],
        }}
      />
    </Figure>
  )
}

'use client'

import { Bar, BarChart, CartesianGrid, Legend, Tooltip, XAxis, YAxis } from 'recharts'

import type { RefundsRow } from '../../staff/insights-types'
import { dayAxisProps, gridProps, legendProps, tooltipProps, valueAxisProps } from './chart-style'
import { byDay, keysOf, rowsOf, sum, totalsByDay } from './data'
import { Chart, Figure, Numbers, Summary } from './Figure'
import { currencyLabel, formatAmount, formatCount, formatLongDay, formatRange } from './format'

type Props = { from: string; to: string; days: string[]; rows: RefundsRow[]; csvHref: string }

const plural = (count: number, one: string, many: string) => `${formatCount(count)} ${count === 1 ? one : many}`

/** Refunds and disputes opened each day: how many on the chart, how much (per currency) in words and in the table. */
export const RefundsChart = ({ from, to, days, rows, csvHref }: Props) => {
  const currencies = keysOf(rows, (row) => row.currency)
  const counts = totalsByDay(days, rows, ['refunds', 'disputes'])
  const refunded = byDay(
    days,
    rows,
    (row) => row.currency,
    (row) => row.refunded,
  )
  const disputed = byDay(
    days,
    rows,
    (row) => row.currency,
    (row) => row.disputed,
  )
  const totalOf = (field: 'refunded' | 'disputed', currency: string) =>
    formatAmount(
      sum(
        rowsOf(rows, (row) => row.currency, currency),
        (row) => row[field],
      ),
      currency,
    )
  const amounts = (field: 'refunded' | 'disputed') =>
    currencies.map((currency) => totalOf(field, currency)).join(' and ')
  const refunds = sum(rows, (row) => row.refunds)
  const disputes = sum(rows, (row) => row.disputes)
  const totals = `${plural(refunds, 'refund', 'refunds')} (${amounts('refunded')}), ${plural(disputes, 'dispute', 'disputes')} (${amounts('disputed')})`
  return (
    <Figure
      csvHref={csvHref}
      description="Refunds made and disputes opened each day; the amounts are in the table, per currency."
      empty={rows.length === 0 ? 'No refunds or disputes in this range.' : null}
      title="Refunds and disputes"
    >
      <Summary>{totals}.</Summary>
      <Chart label={`Refunds and disputes per day, ${formatRange(from, to)}: ${totals}.`}>
        <BarChart data={counts} accessibilityLayer={false}>
          <CartesianGrid {...gridProps} />
          <XAxis {...dayAxisProps} />
          <YAxis {...valueAxisProps(formatCount)} />
          <Tooltip {...tooltipProps(formatCount)} />
          <Legend {...legendProps} />
          <Bar dataKey="refunds" fill="var(--theme-warning-600)" name="Refunds" />
          <Bar dataKey="disputes" fill="var(--theme-error-600)" name="Disputes" />
        </BarChart>
      </Chart>
      <Numbers
        caption={`Refunds and disputes per day, ${formatRange(from, to)}`}
        columns={[
          'Day',
          'Refunds',
          ...currencies.map((currency) => `Refunded, ${currencyLabel(currency)}`),
          'Disputes',
          ...currencies.map((currency) => `Disputed, ${currencyLabel(currency)}`),
        ]}
        of="refunds and disputes"
        rows={counts.map((day, at) => ({
          key: day.day,
          header: formatLongDay(day.day),
          cells: [
            formatCount(day.refunds),
            ...currencies.map((currency) => formatAmount(refunded[at]?.values[currency] ?? 0, currency)),
            formatCount(day.disputes),
            ...currencies.map((currency) => formatAmount(disputed[at]?.values[currency] ?? 0, currency)),
          ],
        }))}
        total={{
          key: 'total',
          header: 'Total',
          cells: [
            formatCount(refunds),
            ...currencies.map((currency) => totalOf('refunded', currency)),
            formatCount(disputes),
            ...currencies.map((currency) => totalOf('disputed', currency)),
          ],
        }}
      />
    </Figure>
  )
}

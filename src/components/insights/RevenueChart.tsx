'use client'

import { Bar, BarChart, CartesianGrid, Tooltip, XAxis, YAxis } from 'recharts'

import type { RevenueRow } from '../../staff/insights-types'
import { colourAt, dayAxisProps, gridProps, tooltipProps, valueAxisProps } from './chart-style'
import { keysOf, rowsOf, sum, totalsByDay } from './data'
import { Chart, Figure, Numbers, Summary } from './Figure'
import { currencyLabel, formatAmount, formatAxisAmount, formatLongDay, formatRange } from './format'

type Props = { from: string; to: string; days: string[]; rows: RevenueRow[]; csvHref: string }

/** Revenue per day, net of refunds: one chart per currency, as amounts of two currencies do not add up. */
export const RevenueChart = ({ from, to, days, rows, csvHref }: Props) => (
  <Figure
    csvHref={csvHref}
    description="Payments received each day less the refunds made that day (a refund counts on its own day), per currency."
    empty={rows.length === 0 ? 'No payments or refunds in this range.' : null}
    title="Revenue"
  >
    {keysOf(rows, (row) => row.currency).map((currency, index) => {
      const own = rowsOf(rows, (row) => row.currency, currency)
      const amount = (minor: number) => formatAmount(minor, currency)
      const totals = `${amount(sum(own, (row) => row.net))} net: ${amount(sum(own, (row) => row.paid))} paid, ${amount(sum(own, (row) => row.refunded))} refunded`
      const data = totalsByDay(days, own, ['paid', 'refunded', 'net'])
      return (
        <div className="staff-insights__part" key={currency}>
          <h4>{currencyLabel(currency)}</h4>
          <Summary>{totals}.</Summary>
          <Chart label={`Net revenue per day in ${currencyLabel(currency)}, ${formatRange(from, to)}: ${totals}.`}>
            <BarChart data={data} accessibilityLayer={false}>
              <CartesianGrid {...gridProps} />
              <XAxis {...dayAxisProps} />
              <YAxis {...valueAxisProps((minor) => formatAxisAmount(minor, currency))} />
              <Tooltip {...tooltipProps(amount)} />
              <Bar dataKey="net" fill={colourAt(index)} name="Net revenue" />
            </BarChart>
          </Chart>
          <Numbers
            caption={`Revenue per day in ${currencyLabel(currency)}, ${formatRange(from, to)}`}
            columns={['Day', 'Paid', 'Refunded', 'Net']}
            of={`revenue in ${currencyLabel(currency)}`}
            rows={data.map((day) => ({
              key: day.day,
              header: formatLongDay(day.day),
              cells: [amount(day.paid), amount(day.refunded), amount(day.net)],
            }))}
            total={{
              key: 'total',
              header: 'Total',
              cells: [
                amount(sum(own, (row) => row.paid)),
                amount(sum(own, (row) => row.refunded)),
                amount(sum(own, (row) => row.net)),
              ],
            }}
          />
        </div>
      )
    })}
  </Figure>
)

'use client'

import { CartesianGrid, Line, LineChart, Tooltip, XAxis, YAxis } from 'recharts'

import type { SubscriptionsRow } from '../../staff/insights-types'
import { colourAt, dayAxisProps, gridProps, tooltipProps, valueAxisProps } from './chart-style'
import { byDay, keysOf, totalsByDay } from './data'
import { Chart, Figure, Numbers, Summary } from './Figure'
import {
  currencyLabel,
  formatAmount,
  formatAxisAmount,
  formatCount,
  formatLongDay,
  formatRange,
  formatShortDay,
} from './format'

type Props = { from: string; to: string; days: string[]; rows: SubscriptionsRow[]; csvHref: string }

/** Subscriptions active at the end of each day, and their monthly recurring revenue per currency. */
export const SubscriptionsChart = ({ from, to, days, rows, csvHref }: Props) => {
  const currencies = keysOf(rows, (row) => row.currency)
  const active = totalsByDay(days, rows, ['active'])
  const mrr = byDay(
    days,
    rows,
    (row) => row.currency,
    (row) => row.mrr,
  )
  // The range's last day: what is running now.
  const lastActive = active.at(-1)?.active ?? 0
  const lastMrr = (currency: string) => formatAmount(mrr.at(-1)?.values[currency] ?? 0, currency)
  const totals = `On ${formatShortDay(to)}: ${formatCount(lastActive)} active ${lastActive === 1 ? 'subscription' : 'subscriptions'}, ${currencies.map(lastMrr).join(' and ')} monthly recurring revenue`
  return (
    <Figure
      csvHref={csvHref}
      description="Subscriptions active at the end of each day, and their monthly recurring revenue (yearly plans count a twelfth) per currency."
      empty={rows.length === 0 ? 'No active subscriptions in this range.' : null}
      title="Subscriptions and monthly recurring revenue"
    >
      <Summary>{totals}.</Summary>
      <div className="staff-insights__part">
        <h4>Active subscriptions</h4>
        <Chart label={`Active subscriptions per day, ${formatRange(from, to)}. ${totals}.`}>
          <LineChart data={active} accessibilityLayer={false}>
            <CartesianGrid {...gridProps} />
            <XAxis {...dayAxisProps} />
            <YAxis {...valueAxisProps(formatCount)} />
            <Tooltip {...tooltipProps(formatCount)} />
            <Line
              dataKey="active"
              dot={false}
              name="Active subscriptions"
              stroke={colourAt(0)}
              strokeWidth={2}
              type="monotone"
            />
          </LineChart>
        </Chart>
      </div>
      {currencies.map((currency, index) => (
        <div className="staff-insights__part" key={currency}>
          <h4>Monthly recurring revenue, {currencyLabel(currency)}</h4>
          <Chart
            label={`Monthly recurring revenue per day in ${currencyLabel(currency)}, ${formatRange(from, to)}: ${lastMrr(currency)} on ${formatShortDay(to)}.`}
          >
            <LineChart data={mrr} accessibilityLayer={false}>
              <CartesianGrid {...gridProps} />
              <XAxis {...dayAxisProps} />
              <YAxis {...valueAxisProps((minor) => formatAxisAmount(minor, currency))} />
              <Tooltip {...tooltipProps((minor) => formatAmount(minor, currency))} />
              <Line
                dataKey={(day: (typeof mrr)[number]) => day.values[currency]}
                dot={false}
                name="Monthly recurring revenue"
                stroke={colourAt(index + 1)}
                strokeWidth={2}
                type="monotone"
              />
            </LineChart>
          </Chart>
        </div>
      ))}
      <Numbers
        caption={`Active subscriptions and monthly recurring revenue per day, ${formatRange(from, to)}`}
        columns={['Day', 'Active', ...currencies.map((currency) => `MRR, ${currencyLabel(currency)}`)]}
        of="subscriptions"
        rows={active.map((day, at) => ({
          key: day.day,
          header: formatLongDay(day.day),
          cells: [
            formatCount(day.active),
            ...currencies.map((currency) => formatAmount(mrr[at]?.values[currency] ?? 0, currency)),
          ],
        }))}
      />
    </Figure>
  )
}

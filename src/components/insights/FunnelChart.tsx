'use client'

import { CartesianGrid, Legend, Line, LineChart, Tooltip, XAxis, YAxis } from 'recharts'

import type { FunnelRow } from '../../staff/insights-types'
import { dayAxisProps, gridProps, legendProps, tooltipProps, valueAxisProps } from './chart-style'
import { sum, totalsByDay } from './data'
import { Chart, Figure, Numbers, Summary } from './Figure'
import { formatCount, formatLongDay, formatRange, formatRate } from './format'

type Props = { from: string; to: string; days: string[]; rows: FunnelRow[]; csvHref: string }

const STEPS = [
  { key: 'pricingViewed', name: 'Pricing viewed', colour: 'var(--theme-elevation-500)' },
  { key: 'checkoutStarted', name: 'Checkout started', colour: 'var(--theme-warning-600)' },
  { key: 'paid', name: 'Paid', colour: 'var(--theme-success-600)' },
] as const

/** The checkout funnel per day: pricing page views, checkouts started, payments; with its conversion in words. */
export const FunnelChart = ({ from, to, days, rows, csvHref }: Props) => {
  const data = totalsByDay(days, rows, ['pricingViewed', 'checkoutStarted', 'paid'])
  const viewed = sum(rows, (row) => row.pricingViewed)
  const started = sum(rows, (row) => row.checkoutStarted)
  const paid = sum(rows, (row) => row.paid)
  const totals =
    `${formatCount(viewed)} pricing page ${viewed === 1 ? 'view' : 'views'}, ` +
    `${formatCount(started)} ${started === 1 ? 'checkout' : 'checkouts'} started (${formatRate(started, viewed)} of views), ` +
    `${formatCount(paid)} paid (${formatRate(paid, started)} of checkouts started, ${formatRate(paid, viewed)} of views)`
  return (
    <Figure
      csvHref={csvHref}
      description="Visits to the pricing page, checkouts started and payments each day, from the analytics events."
      empty={viewed + started + paid === 0 ? 'No pricing page views, checkouts or payments in this range.' : null}
      title="Checkout funnel"
    >
      <Summary>{totals}.</Summary>
      <Chart label={`Checkout funnel per day, ${formatRange(from, to)}: ${totals}.`}>
        <LineChart data={data} accessibilityLayer={false}>
          <CartesianGrid {...gridProps} />
          <XAxis {...dayAxisProps} />
          <YAxis {...valueAxisProps(formatCount)} />
          <Tooltip {...tooltipProps(formatCount)} />
          <Legend {...legendProps} />
          {STEPS.map((step) => (
            <Line
              dataKey={step.key}
              dot={false}
              key={step.key}
              name={step.name}
              stroke={step.colour}
              strokeWidth={2}
              type="monotone"
            />
          ))}
        </LineChart>
      </Chart>
      <Numbers
        caption={`Checkout funnel per day, ${formatRange(from, to)}`}
        columns={['Day', ...STEPS.map((step) => step.name)]}
        of="the checkout funnel"
        rows={data.map((day) => ({
          key: day.day,
          header: formatLongDay(day.day),
          cells: STEPS.map((step) => formatCount(day[step.key])),
        }))}
        total={{ key: 'total', header: 'Total', cells: [viewed, started, paid].map(formatCount) }}
      />
    </Figure>
  )
}

'use client'

import { Bar, BarChart, CartesianGrid, Legend, Tooltip, XAxis, YAxis } from 'recharts'

import { dayAxisProps, gridProps, legendProps, tooltipProps, valueAxisProps } from './chart-style'
import { type DayValues, sum } from './data'
import { Chart, Numbers } from './Figure'
import { formatCount, formatLongDay } from './format'

type StackedSeries = { key: string; name: string; colour: string }

type Props = {
  /** The chart's accessible name, with its totals. */
  label: string
  /** The table's caption, and what its disclosure shows the numbers of. */
  caption: string
  of: string
  data: DayValues[]
  series: StackedSeries[]
}

/** Counts per day stacked by series (plans, releases), and their table: a column per series, then the day's total. */
export const StackedCounts = ({ label, caption, of, data, series }: Props) => (
  <>
    <Chart label={label}>
      <BarChart data={data} accessibilityLayer={false}>
        <CartesianGrid {...gridProps} />
        <XAxis {...dayAxisProps} />
        <YAxis {...valueAxisProps(formatCount)} />
        <Tooltip {...tooltipProps(formatCount)} />
        <Legend {...legendProps} />
        {series.map((one) => (
          <Bar
            dataKey={(day: DayValues) => day.values[one.key]}
            fill={one.colour}
            key={one.key}
            name={one.name}
            stackId="stack"
          />
        ))}
      </BarChart>
    </Chart>
    <Numbers
      caption={caption}
      columns={['Day', ...series.map((one) => one.name), 'Total']}
      of={of}
      rows={data.map((day) => ({
        key: day.day,
        header: formatLongDay(day.day),
        cells: [
          ...series.map((one) => formatCount(day.values[one.key] ?? 0)),
          formatCount(sum(Object.values(day.values), Number)),
        ],
      }))}
      total={{
        key: 'total',
        header: 'Total',
        cells: [
          ...series.map((one) => formatCount(sum(data, (day) => day.values[one.key] ?? 0))),
          formatCount(sum(data, (day) => sum(Object.values(day.values), Number))),
        ],
      }}
    />
  </>
)

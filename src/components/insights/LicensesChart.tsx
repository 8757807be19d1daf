'use client'

import type { LicensesRow } from '../../staff/insights-types'
import { colourAt } from './chart-style'
import { byDay, keysOf, rowsOf, sum } from './data'
import { Figure, Summary } from './Figure'
import { formatCount, formatRange } from './format'
import { StackedCounts } from './StackedCounts'

type Props = { from: string; to: string; days: string[]; rows: LicensesRow[]; csvHref: string }

/** New licenses per day, stacked by plan (named as the seller named them). */
export const LicensesChart = ({ from, to, days, rows, csvHref }: Props) => {
  const plans = keysOf(rows, (row) => row.plan).map((plan) => {
    const own = rowsOf(rows, (row) => row.plan, plan)
    return { plan, name: own[0]!.planName, created: sum(own, (row) => row.created) }
  })
  const total = sum(rows, (row) => row.created)
  const totals = `${formatCount(total)} new ${total === 1 ? 'license' : 'licenses'}: ${plans.map((plan) => `${plan.name} ${formatCount(plan.created)}`).join(', ')}`
  return (
    <Figure
      csvHref={csvHref}
      description="Licenses granted each day, stacked by plan."
      empty={rows.length === 0 ? 'No new licenses in this range.' : null}
      title="New licenses"
    >
      <Summary>{totals}.</Summary>
      <StackedCounts
        caption={`New licenses per day by plan, ${formatRange(from, to)}`}
        data={byDay(
          days,
          rows,
          (row) => row.plan,
          (row) => row.created,
        )}
        label={`New licenses per day by plan, ${formatRange(from, to)}: ${totals}.`}
        of="new licenses"
        series={plans.map((plan, index) => ({ key: plan.plan, name: plan.name, colour: colourAt(index) }))}
      />
    </Figure>
  )
}

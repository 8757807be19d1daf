import type { Params, Payload, PayloadRequest } from 'payload'

import { isStaffUser } from '../access/roles'
import { loadInsights, rangeEndingToday } from '../staff/insights'
import { INSIGHT_RANGES, type InsightRange } from '../staff/insights-types'
import { InsightsPanel } from './insights/InsightsPanel'

type Props = { payload: Payload; user?: PayloadRequest['user'] | undefined; searchParams?: Params | undefined }

export const DEFAULT_INSIGHT_RANGE: InsightRange = 30

/** The range asked for in the dashboard's query (`?insights=7|30|90`); anything else is the default. */
export const insightRangeOf = (searchParams?: Params): InsightRange =>
  INSIGHT_RANGES.find((days) => String(days) === searchParams?.insights) ?? DEFAULT_INSIGHT_RANGE

/**
 * The admin dashboard's insights for staff (issue 27): one load of the range's aggregates, then the
 * charts. Payload hands the dashboard's `beforeDashboard` components the page's query as `searchParams`.
 */
export const StaffInsights = async ({ payload, user, searchParams }: Props) => {
  if (!isStaffUser(user ?? null)) return null
  const range = insightRangeOf(searchParams)
  const insights = await loadInsights(payload, rangeEndingToday(range))
  const { admin, api } = payload.config.routes
  return <InsightsPanel adminRoute={admin} apiRoute={api} insights={insights} range={range} />
}

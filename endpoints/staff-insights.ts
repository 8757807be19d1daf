import type { Endpoint } from 'payload'
import { z } from 'zod'

import { endpoint } from '../src/http/endpoint'
import { insightsCsv, loadInsights, parseInsightRange } from '../src/staff/insights'
import { INSIGHT_SERIES } from '../src/staff/insights-types'

const query = z.object({
  series: z.enum(INSIGHT_SERIES),
  from: z.string().max(10),
  to: z.string().max(10),
})

/**
 * GET /api/staff/insights.csv?series=&from=&to=: one series of the staff insights as CSV (docs/INSIGHTS.md),
 * a row per day; staff only. 400 `invalid_request` for an unknown series, a malformed or reversed range,
 * or one longer than MAX_INSIGHT_DAYS.
 */
export const staffInsightsCsvEndpoint: Endpoint = endpoint({
  path: '/staff/insights.csv',
  method: 'get',
  auth: 'Sign in as staff first.',
  staff: 'Only staff (admin or support) read the insights.',
  query,
  handler: async ({ req, query: { series, from, to } }) => {
    const range = parseInsightRange(from, to)
    const csv = insightsCsv(await loadInsights(req.payload, range), series)
    return new Response(csv, {
      status: 200,
      headers: {
        'Content-Type': 'text/csv; charset=utf-8',
        'Content-Disposition': `attachment; filename="insights-${series}-${range.from}-${range.to}.csv"`,
        'Cache-Control': 'no-store',
      },
    })
  },
})

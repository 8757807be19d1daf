import type { CSSProperties, ReactNode } from 'react'

import { formatLongDay, formatShortDay } from './format'

/**
 * Series colours from Payload's theme variables, so they follow its light and dark themes: the 600 and
 * 800 shades flip in the dark theme (600 is a mid tone on both, 800 dark on light and pale on dark).
 */
const SERIES_COLOURS = [
  'var(--theme-success-600)',
  'var(--theme-warning-600)',
  'var(--theme-elevation-800)',
  'var(--theme-error-600)',
  'var(--theme-success-800)',
  'var(--theme-warning-800)',
  'var(--theme-error-800)',
] as const

/** What a series split off as "other" is drawn in. */
export const OTHER_COLOUR = 'var(--theme-elevation-400)'

export const colourAt = (index: number): string => SERIES_COLOURS[index % SERIES_COLOURS.length]!

export const CHART_HEIGHT = 220

const tick = { fill: 'var(--theme-elevation-600)', fontSize: 12 }

export const gridProps = { stroke: 'var(--theme-elevation-150)', vertical: false } as const

/** The x axis: the days of the range, thinned to what fits (a 360 px screen shows a few). */
export const dayAxisProps = {
  dataKey: 'day',
  tickFormatter: formatShortDay,
  tick,
  stroke: 'var(--theme-elevation-250)',
  minTickGap: 12,
} as const

export const valueAxisProps = (format: (value: number) => string) =>
  ({
    tickFormatter: (value: number) => format(value),
    tick,
    stroke: 'var(--theme-elevation-250)',
    width: 64,
    allowDecimals: false,
  }) as const

const tooltipBox: CSSProperties = {
  background: 'var(--theme-elevation-0)',
  border: '1px solid var(--theme-elevation-150)',
  borderRadius: 'var(--style-radius-s, 3px)',
  color: 'var(--theme-text)',
  fontSize: 13,
}

/** The tooltip: the day in full, each value formatted (amounts in their currency). */
export const tooltipProps = (format: (value: number) => string) =>
  ({
    labelFormatter: (day: ReactNode) => (typeof day === 'string' ? formatLongDay(day) : day),
    formatter: (value: unknown) => format(Number(value)),
    contentStyle: tooltipBox,
    labelStyle: { color: 'var(--theme-text)', fontWeight: 600 },
    cursor: { fill: 'var(--theme-elevation-100)', stroke: 'var(--theme-elevation-300)' },
  }) as const

/** The legend in the series' own order (funnel steps, plans by first sale), not sorted by name. */
export const legendProps = { wrapperStyle: { fontSize: 12, color: 'var(--theme-text)' }, itemSorter: null } as const

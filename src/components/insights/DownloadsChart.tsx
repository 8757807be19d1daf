'use client'

import type { DownloadsRow } from '../../staff/insights-types'
import { colourAt, OTHER_COLOUR } from './chart-style'
import { byDay, keysOf, rowsOf, sum } from './data'
import { Figure, Numbers, Summary } from './Figure'
import { formatCount, formatRange } from './format'
import { StackedCounts } from './StackedCounts'

type Props = { from: string; to: string; days: string[]; rows: DownloadsRow[]; csvHref: string }

/** Releases drawn on their own; the rest share one "Other releases" series (the tables still list each). */
export const CHARTED_RELEASES = 5
const OTHER = 'Other releases'

/** Release downloads per day, stacked by release: the most downloaded on their own, the rest together. */
export const DownloadsChart = ({ from, to, days, rows, csvHref }: Props) => {
  const releases = keysOf(rows, (row) => row.release)
    .map((release) => ({
      release,
      downloads: sum(
        rowsOf(rows, (row) => row.release, release),
        (row) => row.downloads,
      ),
    }))
    .sort((a, b) => b.downloads - a.downloads || a.release.localeCompare(b.release))
  // One release over the limit is drawn rather than called "other" on its own.
  const charted = new Set(
    (releases.length > CHARTED_RELEASES + 1 ? releases.slice(0, CHARTED_RELEASES) : releases).map((row) => row.release),
  )
  const grouped = charted.size < releases.length
  const total = sum(rows, (row) => row.downloads)
  const totals = `${formatCount(total)} ${total === 1 ? 'download' : 'downloads'}: ${releases.map((row) => `${row.release} ${formatCount(row.downloads)}`).join(', ')}`
  return (
    <Figure
      csvHref={csvHref}
      description="Release downloads each day, stacked by release version."
      empty={rows.length === 0 ? 'No release downloads in this range.' : null}
      title="Downloads per release"
    >
      <Summary>{totals}.</Summary>
      <StackedCounts
        caption={`Release downloads per day, ${formatRange(from, to)}`}
        data={byDay(
          days,
          rows,
          (row) => (charted.has(row.release) ? row.release : OTHER),
          (row) => row.downloads,
        )}
        label={`Release downloads per day, ${formatRange(from, to)}: ${totals}.`}
        of="downloads per day"
        series={[
          ...[...charted].map((release, index) => ({ key: release, name: release, colour: colourAt(index) })),
          ...(grouped ? [{ key: OTHER, name: OTHER, colour: OTHER_COLOUR }] : []),
        ]}
      />
      {grouped && (
        <Numbers
          caption={`Release downloads per release, ${formatRange(from, to)}`}
          columns={['Release', 'Downloads']}
          disclose="Show every release"
          of="downloads per release"
          rows={releases.map((row) => ({ key: row.release, header: row.release, cells: [formatCount(row.downloads)] }))}
        />
      )}
    </Figure>
  )
}

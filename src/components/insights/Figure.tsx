'use client'

import { type ReactElement, type ReactNode, useId } from 'react'
import { ResponsiveContainer } from 'recharts'

import { CHART_HEIGHT } from './chart-style'

type FigureProps = {
  title: string
  /** What the figure shows, in a sentence. */
  description: string
  csvHref: string
  /** The words shown instead of the chart when the range has nothing; null when it has data. */
  empty: string | null
  children?: ReactNode
}

/** One figure of the insights: its heading, what it shows, its CSV, and its charts and numbers (or why there are none). */
export const Figure = ({ title, description, csvHref, empty, children }: FigureProps) => {
  const id = useId()
  return (
    <section aria-labelledby={id} className="staff-insights__figure">
      <div className="staff-insights__figure-head">
        <h3 id={id}>{title}</h3>
        <a className="staff-insights__csv" download href={csvHref}>
          Download CSV<span className="staff-insights__hidden"> of {title.toLowerCase()}</span>
        </a>
      </div>
      <p className="staff-insights__description">{description}</p>
      {empty === null ? children : <p className="staff-insights__empty">{empty}</p>}
    </section>
  )
}

/**
 * A chart, named for assistive technology by its totals (`role="img"`): the SVG's shapes say nothing to
 * a screen reader, the table beside it says everything.
 */
export const Chart = ({ label, children }: { label: string; children: ReactElement }) => (
  <div aria-label={label} className="staff-insights__chart" role="img" style={{ height: CHART_HEIGHT }}>
    <ResponsiveContainer height="100%" width="100%">
      {children}
    </ResponsiveContainer>
  </div>
)

/** The figure's totals in words, for everyone. */
export const Summary = ({ children }: { children: ReactNode }) => <p className="staff-insights__summary">{children}</p>

export type TableRow = { key: string; header: string; cells: string[] }

/** The numbers behind a chart, every value, as a real table behind a disclosure. */
export const Numbers = ({
  of,
  caption,
  columns,
  rows,
  total,
  disclose = 'Show the numbers',
}: {
  of: string
  caption: string
  columns: string[]
  rows: TableRow[]
  total?: TableRow
  /** The disclosure's visible words, when a figure has two tables. */
  disclose?: string
}) => (
  <details className="staff-insights__numbers">
    <summary>
      {disclose}
      <span className="staff-insights__hidden"> of {of}</span>
    </summary>
    <div className="staff-insights__table">
      <table>
        <caption>{caption}</caption>
        <thead>
          <tr>
            {columns.map((column) => (
              <th key={column} scope="col">
                {column}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <Row key={row.key} row={row} />
          ))}
        </tbody>
        {total && (
          <tfoot>
            <Row row={total} />
          </tfoot>
        )}
      </table>
    </div>
  </details>
)

const Row = ({ row }: { row: TableRow }) => (
  <tr>
    <th scope="row">{row.header}</th>
    {row.cells.map((cell, index) => (
      <td key={index}>{cell}</td>
    ))}
  </tr>
)

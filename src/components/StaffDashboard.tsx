import type { Params, Payload, PayloadRequest } from 'payload'

import { isStaffUser } from '../access/roles'
import { formatMinorAmount, SALES_DAYS, staffDashboardData } from '../staff/dashboard'
import { StaffInsights } from './StaffInsights'

type Props = { payload: Payload; user?: PayloadRequest['user'] | undefined; searchParams?: Params | undefined }

const count = new Intl.NumberFormat('en-US')
const day = new Intl.DateTimeFormat('en-US', { weekday: 'short', month: 'short', day: 'numeric', timeZone: 'UTC' })
const moment = new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' })

/**
 * The admin dashboard's panel for staff (`beforeDashboard`): sales, active licenses, downloads, failed
 * events; then the insights of the range in the query. The insights are awaited here, not rendered as an
 * async element: both load at once, and the tree renders anywhere (the tests use renderToStaticMarkup).
 */
export const StaffDashboard = async ({ payload, user, searchParams }: Props) => {
  if (!isStaffUser(user ?? null)) return null
  const [data, insights] = await Promise.all([
    staffDashboardData(payload),
    StaffInsights({ payload, user, searchParams }),
  ])
  const admin = payload.config.routes.admin
  return (
    <>
      <section aria-label="Staff overview" className="staff-dashboard">
        <div className="staff-dashboard__card">
          <h3>Sales, last {SALES_DAYS} days</h3>
          {data.sales.byCurrency.length === 0 ? (
            <p className="staff-dashboard__empty">No payments.</p>
          ) : (
            <table>
              <thead>
                <tr>
                  <th scope="col">Currency</th>
                  <th scope="col">Payments</th>
                  <th scope="col">Net</th>
                </tr>
              </thead>
              <tbody>
                {data.sales.byCurrency.map((row) => (
                  <tr key={row.currency}>
                    <td>{row.currency.toUpperCase()}</td>
                    <td>{count.format(row.payments)}</td>
                    <td
                      title={`Gross ${formatMinorAmount(row.gross, row.currency)}, refunded ${formatMinorAmount(row.refunded, row.currency)}`}
                    >
                      {formatMinorAmount(row.net, row.currency)}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <p className="staff-dashboard__note">Succeeded payments less refunds.</p>
        </div>
        <div className="staff-dashboard__card">
          <h3>Active licenses</h3>
          <p className="staff-dashboard__big">{count.format(data.licenses.total)}</p>
          <ul>
            {data.licenses.byPlan.map((row) => (
              <li key={row.plan}>
                <a
                  href={`${admin}/collections/licenses?where[and][0][status][equals]=active&where[and][1][plan][equals]=${row.planId}`}
                >
                  {row.name}
                </a>
                <span>{count.format(row.active)}</span>
              </li>
            ))}
          </ul>
        </div>
        <div className="staff-dashboard__card">
          <h3>Downloads this week</h3>
          <p className="staff-dashboard__big">{count.format(data.downloads.releases + data.downloads.templates)}</p>
          <ul>
            <li>
              <a href={`${admin}/collections/downloads`}>Releases</a>
              <span>{count.format(data.downloads.releases)}</span>
            </li>
            <li>
              <a href={`${admin}/collections/template_downloads`}>Templates</a>
              <span>{count.format(data.downloads.templates)}</span>
            </li>
          </ul>
          <p className="staff-dashboard__note">Since {day.format(new Date(data.downloads.since))} (UTC).</p>
        </div>
        <div className={`staff-dashboard__card${data.failedEvents.total > 0 ? ' staff-dashboard__card--alert' : ''}`}>
          <h3>Failed processor events</h3>
          <p className="staff-dashboard__big">{count.format(data.failedEvents.total)}</p>
          {data.failedEvents.total === 0 ? (
            <p className="staff-dashboard__empty">None: every event was applied.</p>
          ) : (
            <ul>
              {data.failedEvents.latest.map((event) => (
                <li className="staff-dashboard__event" key={event.id}>
                  <a href={`${admin}/collections/processor_events/${event.id}`} title={event.lastError ?? undefined}>
                    {event.type}
                  </a>
                  <span>
                    {moment.format(new Date(event.receivedAt))} UTC, {count.format(event.attempts)}{' '}
                    {event.attempts === 1 ? 'attempt' : 'attempts'}
                  </span>
                </li>
              ))}
            </ul>
          )}
          {data.failedEvents.total > data.failedEvents.latest.length && (
            <p className="staff-dashboard__note">
              <a href={`${admin}/collections/processor_events?where[status][equals]=failed`}>
                All {count.format(data.failedEvents.total)} failed events
              </a>
            </p>
          )}
          {data.failedEvents.total > 0 && (
            <p className="staff-dashboard__note">Open an event and press &quot;Run again&quot;.</p>
          )}
        </div>
      </section>
      {insights}
    </>
  )
}

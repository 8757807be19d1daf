import { INSIGHT_RANGES, type InsightRange, type Insights, type InsightSeries } from '../../staff/insights-types'
import { DownloadsChart } from './DownloadsChart'
import { formatRange } from './format'
import { FunnelChart } from './FunnelChart'
import { LicensesChart } from './LicensesChart'
import { RecoveryChart } from './RecoveryChart'
import { RefundsChart } from './RefundsChart'
import { RevenueChart } from './RevenueChart'
import { SubscriptionsChart } from './SubscriptionsChart'

type Props = {
  insights: Insights
  range: InsightRange
  /** Payload's routes: the dashboard the range links go back to, and the API of the CSV export. */
  adminRoute: string
  apiRoute: string
}

/** The insights of a range (a server component: the charts within are client components fed plain rows). */
export const InsightsPanel = ({ insights, range, adminRoute, apiRoute }: Props) => {
  const { from, to, days } = insights
  const csvHref = (series: InsightSeries) =>
    `${apiRoute}/staff/insights.csv?${new URLSearchParams({ series, from, to }).toString()}`
  return (
    <section aria-labelledby="staff-insights-title" className="staff-insights">
      <div className="staff-insights__head">
        <h2 id="staff-insights-title">Insights</h2>
        <p className="staff-insights__range">{formatRange(from, to)} (UTC days)</p>
        <nav aria-label="Insights range">
          <ul className="staff-insights__ranges">
            {INSIGHT_RANGES.map((days) => (
              <li key={days}>
                <a aria-current={days === range ? 'page' : undefined} href={`${adminRoute}?insights=${days}`}>
                  {days} days
                </a>
              </li>
            ))}
          </ul>
        </nav>
      </div>
      <div className="staff-insights__grid">
        <RevenueChart csvHref={csvHref('revenue')} days={days} from={from} rows={insights.revenue} to={to} />
        <LicensesChart csvHref={csvHref('licenses')} days={days} from={from} rows={insights.licenses} to={to} />
        <SubscriptionsChart
          csvHref={csvHref('subscriptions')}
          days={days}
          from={from}
          rows={insights.subscriptions}
          to={to}
        />
        <RefundsChart csvHref={csvHref('refunds')} days={days} from={from} rows={insights.refunds} to={to} />
        <FunnelChart csvHref={csvHref('funnel')} days={days} from={from} rows={insights.funnel} to={to} />
        <RecoveryChart csvHref={csvHref('recovery')} days={days} from={from} rows={insights.recovery} to={to} />
        <DownloadsChart csvHref={csvHref('downloads')} days={days} from={from} rows={insights.downloads} to={to} />
      </div>
    </section>
  )
}

import type { Metadata } from 'next'

import { PRODUCT_NAME } from '../../../config/product'
import { PricingNotices } from '../_components/PricingNotices'
import { PricingTable } from '../_components/PricingTable'
import { loadPricing } from '../_components/pricing-data'

// A signed-in visitor sees what they own: render on every request (the plans themselves come from a
// cached read that a change to a plan expires, src/plans/revalidate.ts).
export const dynamic = 'force-dynamic'

export const metadata: Metadata = {
  title: `Pricing · ${PRODUCT_NAME}`,
  description: 'Standard and Ultimate once, or Pro by the month or year. Every paid plan includes the whole kit and its updates.',
}

type Props = { searchParams: Promise<{ checkout_error?: string }> }

const PricingPage = async ({ searchParams }: Props) => {
  const { checkout_error: checkoutError } = await searchParams
  const { plans, ownedPlanIds, signedIn, upgrades } = await loadPricing()
  return (
    <section className="pricing-page">
      <header className="page-intro">
        <h1>Pricing</h1>
        <p className="lead">Pay once for the kit and its updates, or subscribe for the features that keep growing.</p>
      </header>
      <PricingNotices checkoutError={checkoutError} />
      <PricingTable plans={plans} ownedPlanIds={ownedPlanIds} signedIn={signedIn} upgrades={upgrades} from="/pricing" />
    </section>
  )
}

export default PricingPage

import type { Metadata } from 'next'

import { PricingTable } from '../_components/PricingTable'
import { CHECKOUT_ERRORS, loadPricing } from '../_components/pricing-data'

// Plans change in the admin, and a signed-in visitor sees what they own: render on every request.
export const dynamic = 'force-dynamic'

export const metadata: Metadata = {
  title: 'Pricing · Starter Kit',
  description: 'Standard and Ultimate once, or Pro by the month or year. Every paid plan includes the whole kit and its updates.',
}

type Props = { searchParams: Promise<{ checkout_error?: string }> }

const PricingPage = async ({ searchParams }: Props) => {
  const { checkout_error: checkoutError } = await searchParams
  const { plans, ownedPlanIds, signedIn } = await loadPricing()
  const standIn = process.env.PAYMENT_STANDIN_URL
  return (
    <section className="pricing-page">
      <header className="page-intro">
        <h1>Pricing</h1>
        <p className="lead">Pay once for the kit and its updates, or subscribe for the features that keep growing.</p>
      </header>
      {standIn ? (
        <p className="notice" data-testid="standin-notice">
          Development mode: checkout runs on the local processor stand-in. No real payment is taken.
        </p>
      ) : null}
      {checkoutError ? (
        <p role="alert" className="error-box">
          {CHECKOUT_ERRORS[checkoutError] ?? CHECKOUT_ERRORS.invalid_request}
        </p>
      ) : null}
      <PricingTable plans={plans} ownedPlanIds={ownedPlanIds} signedIn={signedIn} from="/pricing" />
    </section>
  )
}

export default PricingPage

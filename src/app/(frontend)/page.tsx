import { PricingTable } from './_components/PricingTable'
import { CHECKOUT_ERRORS, loadPricing } from './_components/pricing-data'

// Plans change in the admin: render on every request, never at build time.
export const dynamic = 'force-dynamic'

type Props = { searchParams: Promise<{ checkout_error?: string }> }

const HomePage = async ({ searchParams }: Props) => {
  const { checkout_error: checkoutError } = await searchParams
  const { plans, ownedPlanIds, signedIn } = await loadPricing()
  const standIn = process.env.PAYMENT_STANDIN_URL
  return (
    <>
      <header className="hero">
        <h1>Ship your web application faster</h1>
        <p className="lead">One purchase, the whole starter kit: authentication, billing, an admin UI and more.</p>
        <p className="hero-actions">
          <a className="button" href="/pricing">
            See pricing
          </a>
          <a className="button button-secondary" href="/changelog">
            What is new
          </a>
        </p>
      </header>
      {standIn ? (
        <p className="notice" data-testid="standin-notice">
          Development mode: checkout runs on the local processor stand-in ({standIn}). No real payment is taken.
        </p>
      ) : null}
      <section id="pricing" aria-labelledby="pricing-heading">
        <h2 id="pricing-heading">Pricing</h2>
        {checkoutError ? (
          <p role="alert" className="error-box">
            {CHECKOUT_ERRORS[checkoutError] ?? CHECKOUT_ERRORS.invalid_request}
          </p>
        ) : null}
        <PricingTable plans={plans} ownedPlanIds={ownedPlanIds} signedIn={signedIn} from="/" />
        <p>
          <a href="/pricing">Compare the plans on the pricing page</a>
        </p>
      </section>
    </>
  )
}

export default HomePage

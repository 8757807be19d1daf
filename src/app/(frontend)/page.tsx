import { PricingNotices } from './_components/PricingNotices'
import { PricingTable } from './_components/PricingTable'
import { loadPricing } from './_components/pricing-data'

// Plans change in the admin: render on every request, never at build time.
export const dynamic = 'force-dynamic'

type Props = { searchParams: Promise<{ checkout_error?: string }> }

const HomePage = async ({ searchParams }: Props) => {
  const { checkout_error: checkoutError } = await searchParams
  const { plans, ownedPlanIds, signedIn, upgrades } = await loadPricing()
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
      <section id="pricing" aria-labelledby="pricing-heading">
        <h2 id="pricing-heading">Pricing</h2>
        <PricingNotices checkoutError={checkoutError} />
        <PricingTable plans={plans} ownedPlanIds={ownedPlanIds} signedIn={signedIn} upgrades={upgrades} from="/" />
        <p>
          <a href="/pricing">Compare the plans on the pricing page</a>
        </p>
      </section>
    </>
  )
}

export default HomePage

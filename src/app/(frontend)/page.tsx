import { currentUser, getPayloadClient } from '../../auth/session'
import { startCheckout } from '../../billing/actions'
import { formatPlanPrice } from '../../plans/format'

// Plans change in the admin: render on every request, never at build time.
export const dynamic = 'force-dynamic'

const CHECKOUT_ERRORS: Record<string, string> = {
  unknown_price: 'That plan is not for sale right now.',
  processor_mode_mismatch: 'That plan is misconfigured (test and live prices mixed). Please tell us.',
  processor_unavailable: 'The payment processor is not reachable right now. Please try again in a minute.',
  processor_not_configured: 'Payments are not configured on this server.',
  invalid_request: 'Something was wrong with that request. Please try again.',
  rate_limited: 'Too many checkout attempts from here. Please wait a few minutes and try again.',
}

type Props = { searchParams: Promise<{ checkout_error?: string }> }

const HomePage = async ({ searchParams }: Props) => {
  const { checkout_error: checkoutError } = await searchParams
  const payload = await getPayloadClient()
  const user = await currentUser()
  const { docs: plans } = await payload.find({
    collection: 'plans',
    where: { active: { equals: true } },
    sort: 'order',
    limit: 20,
    depth: 0,
    overrideAccess: false,
  })
  const standIn = process.env.PAYMENT_STANDIN_URL
  return (
    <>
      <h1>Ship your web application faster</h1>
      <p>One purchase, the whole starter kit: authentication, billing, an admin UI and more.</p>
      {standIn ? (
        <p className="notice" data-testid="standin-notice">
          Development mode: checkout runs on the local processor stand-in ({standIn}). No real payment is taken.
        </p>
      ) : null}
      <section id="pricing">
        <h2>Pricing</h2>
        {checkoutError ? <p role="alert" className="error">{CHECKOUT_ERRORS[checkoutError] ?? CHECKOUT_ERRORS.invalid_request}</p> : null}
        <div className="plans">
          {plans.map((plan) => {
            const prices = [
              { id: plan.priceIds?.monthly, label: plan.billing === 'recurring' ? `${plan.buttonText} monthly` : plan.buttonText },
              ...(plan.billing === 'recurring' && plan.priceIds?.yearly ? [{ id: plan.priceIds.yearly, label: `${plan.buttonText} yearly` }] : []),
            ]
            return (
              <article key={plan.id} className={plan.isPopular ? 'plan popular' : 'plan'} data-plan={plan.slug}>
                <h3>{plan.name}</h3>
                <div className="price">{formatPlanPrice(plan)}</div>
                <p>{plan.description}</p>
                <ul>
                  {(plan.features ?? []).map((feature) => (
                    <li key={feature.id ?? feature.text}>{feature.text}</li>
                  ))}
                </ul>
                {plan.isFree ? (
                  <a className="button" href={user ? '/dashboard' : '/sign-up'}>
                    {plan.buttonText}
                  </a>
                ) : (
                  prices.map((price) => (
                    <form key={price.label} action={startCheckout}>
                      <input type="hidden" name="priceId" value={price.id ?? ''} />
                      <button type="submit" disabled={!price.id}>
                        {price.label}
                      </button>
                    </form>
                  ))
                )}
              </article>
            )
          })}
        </div>
      </section>
    </>
  )
}

export default HomePage

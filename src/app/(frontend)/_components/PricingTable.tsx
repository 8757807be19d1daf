import type { Plan } from '../../../payload-types'
import { formatMoney, yearlySaving } from '../../../plans/format'
import { startCheckout } from '../_actions/checkout'
import type { PricingOrigin } from './pricing-origin'
import { upgradeLicense } from '../dashboard/actions'

type Props = {
  plans: Plan[]
  from: PricingOrigin
  /** The plans' heading level: 2 on /pricing (under its h1), 3 on the home page (under "Pricing"). */
  headingLevel: 2 | 3
}

/** How many people one purchase of the plan may cover (the checkout's quantity, 1 up to this). */
const maxSeatsOf = (plan: Plan) => Math.max(1, plan.maxSeats ?? 1)

/**
 * The number of seats, in the Buy form of a plan that covers several people: a plain number field, so
 * the page needs no JavaScript; the checkout checks the range again. `id` tells the forms apart (the
 * home page and /pricing, monthly and yearly).
 */
const SeatsField = ({ id, maxSeats }: { id: string; maxSeats: number }) => (
  <div className="seats-field">
    <label htmlFor={id}>Seats</label>
    <input
      id={id}
      type="number"
      name="quantity"
      min={1}
      max={maxSeats}
      step={1}
      defaultValue={1}
      inputMode="numeric"
      required
      aria-describedby={`${id}-hint`}
    />
    <p id={`${id}-hint`} className="seats-hint">
      One per person, up to {maxSeats}. You invite the others by email from your dashboard.
    </p>
  </div>
)

const CheckoutButton = ({
  priceId,
  label,
  from,
  primary,
  seats,
}: {
  priceId: string | null | undefined
  label: string
  from: PricingOrigin
  primary: boolean
  /** The seats field's id and the plan's most seats, for a plan that covers several people. */
  seats?: { id: string; maxSeats: number }
}) => (
  <form action={startCheckout} className="checkout-form">
    <input type="hidden" name="priceId" value={priceId ?? ''} />
    <input type="hidden" name="from" value={from} />
    {seats ? <SeatsField {...seats} /> : null}
    <button type="submit" className={primary ? 'button' : 'button button-secondary'} disabled={!priceId}>
      {label}
    </button>
  </form>
)

/**
 * A plan's buttons for a signed-in visitor, hidden until the pricing island knows who they are: the
 * dashboard for a plan they own (or the free plan), and the upgrade of their one-time license to this
 * plan (the island fills in the license, the label with the price and the note).
 */
const VisitorVariants = ({ plan, from }: { plan: Plan; from: PricingOrigin }) => (
  <>
    <a className="button button-secondary" href="/dashboard" data-variant="owned" hidden>
      You own this plan: open your dashboard
    </a>
    {plan.isFree ? (
      <a className="button button-secondary" href="/dashboard" data-variant="dashboard" hidden>
        Open your dashboard
      </a>
    ) : plan.billing === 'lifetime' ? (
      <form action={upgradeLicense} className="checkout-form" data-variant="upgrade" hidden>
        <input type="hidden" name="license" value="" />
        <input type="hidden" name="plan" value={plan.slug} />
        <input type="hidden" name="from" value={from} />
        <button type="submit" className={plan.isPopular ? 'button' : 'button button-secondary'}>
          Upgrade
        </button>
        <p className="upgrade-note" hidden />
      </form>
    ) : null}
  </>
)

const Check = () => (
  <svg aria-hidden="true" viewBox="0 0 20 20" width="16" height="16" className="check">
    <path d="M7.6 13.4 4.2 10l-1.2 1.2 4.6 4.6 10-10-1.2-1.2z" fill="currentColor" />
  </svg>
)

/**
 * The plans side by side: lifetime prices, the recurring plan monthly or yearly (a toggle made of two
 * radio buttons and CSS, so it works without JavaScript; without :has() support both prices show),
 * the popular plan highlighted, a checkout button per paid price (a plain form: anonymous visitors
 * too; with a number of seats for a plan that covers several people, priced per seat), and the free
 * plan leading to sign-up. The same HTML for every visitor (the page is cached): a plan the signed-in
 * visitor owns, and a higher one-time plan their license can move up to (its price less what it paid),
 * come from their own request: each plan's other buttons are here, hidden, for the pricing island
 * (`_islands/pricing.ts`) to show.
 */
export const PricingTable = ({ plans, from, headingLevel }: Props) => {
  const Heading = headingLevel === 2 ? 'h2' : 'h3'
  const headingId = (plan: Plan) => `${from === '/' ? 'home' : 'pricing'}-plan-${plan.slug}`
  const savings = plans
    .map((plan) => (plan.billing === 'recurring' ? yearlySaving(plan) : null))
    .filter((value): value is number => value !== null)
  const bestSaving = savings.length > 0 ? Math.max(...savings) : null
  const hasYearly = plans.some((plan) => plan.billing === 'recurring' && plan.priceIds?.yearly)
  return (
    <div className="pricing" data-island="pricing">
      {hasYearly ? (
        <fieldset className="cycle-toggle">
          <legend className="visually-hidden">Billing period for the subscription</legend>
          <input
            type="radio"
            name="billing-cycle"
            id={`${from}-cycle-monthly`}
            className="cycle-monthly-input"
            defaultChecked
          />
          <label htmlFor={`${from}-cycle-monthly`}>Monthly</label>
          <input type="radio" name="billing-cycle" id={`${from}-cycle-yearly`} className="cycle-yearly-input" />
          <label htmlFor={`${from}-cycle-yearly`}>
            Yearly{bestSaving ? <span className="saving"> save {bestSaving}%</span> : null}
          </label>
        </fieldset>
      ) : null}
      <div className="plans">
        {plans.map((plan) => {
          const saving = plan.billing === 'recurring' ? yearlySaving(plan) : null
          const maxSeats = maxSeatsOf(plan)
          // A plan that covers several people is priced per person: "$149 per seat, one-time".
          const term = (words: string) =>
            maxSeats > 1 ? `per seat${words === 'one-time' ? ', ' : ' '}${words}` : words
          const seats = (cycle: string) =>
            maxSeats > 1 ? { id: `${from}-seats-${plan.slug}-${cycle}`, maxSeats } : undefined
          return (
            <article
              key={plan.id}
              className={plan.isPopular ? 'plan popular' : 'plan'}
              data-plan={plan.slug}
              data-plan-id={plan.id}
              {...(plan.isFree ? { 'data-free': '' } : {})}
              aria-labelledby={headingId(plan)}
            >
              {plan.isPopular ? <p className="ribbon">Most popular</p> : null}
              <p className="owned-badge" hidden>
                Your plan
              </p>
              <Heading id={headingId(plan)}>{plan.name}</Heading>
              {plan.description ? <p className="plan-description">{plan.description}</p> : null}

              {plan.isFree ? (
                <p className="price">
                  {formatMoney(0)} <span className="price-term">forever</span>
                </p>
              ) : plan.billing === 'lifetime' ? (
                <p className="price">
                  {formatMoney(plan.monthlyPrice)} <span className="price-term">{term('one-time')}</span>
                </p>
              ) : (
                <>
                  <p className="price cycle-monthly">
                    {formatMoney(plan.monthlyPrice)} <span className="price-term">{term('per month')}</span>
                  </p>
                  {plan.yearlyPrice ? (
                    <p className="price cycle-yearly">
                      {formatMoney(plan.yearlyPrice)} <span className="price-term">{term('per year')}</span>
                      <span className="price-note">
                        {formatMoney(Math.round((plan.yearlyPrice / 12) * 100) / 100)} a month
                        {saving ? `, ${saving}% less than monthly` : ''}
                      </span>
                    </p>
                  ) : null}
                </>
              )}

              <ul className="features">
                {(plan.features ?? []).map((feature) => (
                  <li key={feature.id ?? feature.text}>
                    <Check />
                    {feature.text}
                  </li>
                ))}
              </ul>

              <div className="plan-actions">
                <div data-variant="anonymous">
                  {plan.isFree ? (
                    <a className="button button-secondary" href="/sign-up">
                      {plan.buttonText}
                    </a>
                  ) : plan.billing === 'recurring' ? (
                    <>
                      <div className="cycle-monthly">
                        <CheckoutButton
                          priceId={plan.priceIds?.monthly}
                          label={`${plan.buttonText} monthly`}
                          from={from}
                          primary={Boolean(plan.isPopular)}
                          seats={seats('monthly')}
                        />
                      </div>
                      {plan.priceIds?.yearly ? (
                        <div className="cycle-yearly">
                          <CheckoutButton
                            priceId={plan.priceIds.yearly}
                            label={`${plan.buttonText} yearly`}
                            from={from}
                            primary={Boolean(plan.isPopular)}
                            seats={seats('yearly')}
                          />
                        </div>
                      ) : null}
                    </>
                  ) : (
                    <CheckoutButton
                      priceId={plan.priceIds?.monthly}
                      label={plan.buttonText}
                      from={from}
                      primary={Boolean(plan.isPopular)}
                      seats={seats('once')}
                    />
                  )}
                </div>
                <VisitorVariants plan={plan} from={from} />
              </div>
            </article>
          )
        })}
      </div>
      <p className="pricing-footnote">
        Prices in US dollars. Lifetime plans are paid once; the subscription renews until you cancel it in the billing
        portal.
      </p>
    </div>
  )
}

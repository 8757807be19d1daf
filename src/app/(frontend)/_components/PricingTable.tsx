import type { Plan } from '../../../payload-types'
import { formatMoney, yearlySaving } from '../../../plans/format'
import { startCheckout } from '../_actions/checkout'
import { upgradeLicense } from '../dashboard/actions'
import { formatMinor, type UpgradeOffer, upgradeLabel } from '../dashboard/offers'

/** Where a failed checkout comes back to (the action redirects there with `checkout_error`). */
export type PricingOrigin = '/' | '/pricing'

type Props = {
  plans: Plan[]
  /** Plans the signed-in visitor holds an active license for. */
  ownedPlanIds: Set<number>
  signedIn: boolean
  from: PricingOrigin
  /** By plan id: the upgrade of a one-time license the signed-in visitor holds to this higher plan. */
  upgrades?: Map<number, UpgradeOffer>
}

const CheckoutButton = ({ priceId, label, from, primary }: { priceId: string | null | undefined; label: string; from: PricingOrigin; primary: boolean }) => (
  <form action={startCheckout} className="checkout-form">
    <input type="hidden" name="priceId" value={priceId ?? ''} />
    <input type="hidden" name="from" value={from} />
    <button type="submit" className={primary ? 'button' : 'button button-secondary'} disabled={!priceId}>
      {label}
    </button>
  </form>
)

/** In place of Buy for a visitor whose one-time license can move up: the checkout of the difference. */
const UpgradeButton = ({ offer, from, primary }: { offer: UpgradeOffer; from: PricingOrigin; primary: boolean }) => (
  <form action={upgradeLicense} className="checkout-form">
    <input type="hidden" name="license" value={offer.licenseId} />
    <input type="hidden" name="plan" value={offer.to.slug} />
    <input type="hidden" name="from" value={from} />
    <button type="submit" className={primary ? 'button' : 'button button-secondary'}>
      {upgradeLabel(offer)}
    </button>
    {offer.credit > 0 ? (
      <p className="upgrade-note">
        The {formatMinor(offer.credit, offer.currency)} paid for your {offer.fromName} license counts towards it.
      </p>
    ) : null}
  </form>
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
 * too), the free plan leading to sign-up, a plan the visitor already owns saying so, and a higher
 * one-time plan offered as an upgrade of the visitor's one-time license (its price less what it paid).
 */
export const PricingTable = ({ plans, ownedPlanIds, signedIn, from, upgrades }: Props) => {
  const savings = plans.map((plan) => (plan.billing === 'recurring' ? yearlySaving(plan) : null)).filter((value): value is number => value !== null)
  const bestSaving = savings.length > 0 ? Math.max(...savings) : null
  const hasYearly = plans.some((plan) => plan.billing === 'recurring' && plan.priceIds?.yearly)
  return (
    <div className="pricing">
      {hasYearly ? (
        <fieldset className="cycle-toggle">
          <legend className="visually-hidden">Billing period for the subscription</legend>
          <input type="radio" name="billing-cycle" id={`${from}-cycle-monthly`} className="cycle-monthly-input" defaultChecked />
          <label htmlFor={`${from}-cycle-monthly`}>Monthly</label>
          <input type="radio" name="billing-cycle" id={`${from}-cycle-yearly`} className="cycle-yearly-input" />
          <label htmlFor={`${from}-cycle-yearly`}>
            Yearly{bestSaving ? <span className="saving"> save {bestSaving}%</span> : null}
          </label>
        </fieldset>
      ) : null}
      <div className="plans">
        {plans.map((plan) => {
          const owned = ownedPlanIds.has(plan.id)
          const upgrade = upgrades?.get(plan.id)
          const saving = plan.billing === 'recurring' ? yearlySaving(plan) : null
          return (
            <article key={plan.id} className={plan.isPopular ? 'plan popular' : 'plan'} data-plan={plan.slug} aria-labelledby={`plan-${plan.slug}`}>
              {plan.isPopular ? <p className="ribbon">Most popular</p> : null}
              {owned ? <p className="owned-badge">Your plan</p> : null}
              <h3 id={`plan-${plan.slug}`}>{plan.name}</h3>
              {plan.description ? <p className="plan-description">{plan.description}</p> : null}

              {plan.isFree ? (
                <p className="price">
                  {formatMoney(0)} <span className="price-term">forever</span>
                </p>
              ) : plan.billing === 'lifetime' ? (
                <p className="price">
                  {formatMoney(plan.monthlyPrice)} <span className="price-term">one-time</span>
                </p>
              ) : (
                <>
                  <p className="price cycle-monthly">
                    {formatMoney(plan.monthlyPrice)} <span className="price-term">per month</span>
                  </p>
                  {plan.yearlyPrice ? (
                    <p className="price cycle-yearly">
                      {formatMoney(plan.yearlyPrice)} <span className="price-term">per year</span>
                      <span className="price-note">
                        {formatMoney(Math.round((plan.yearlyPrice / 12) * 100) / 100)} a month{saving ? `, ${saving}% less than monthly` : ''}
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
                {owned ? (
                  <a className="button button-secondary" href="/dashboard">
                    You own this plan: open your dashboard
                  </a>
                ) : plan.isFree ? (
                  <a className="button button-secondary" href={signedIn ? '/dashboard' : '/sign-up'}>
                    {signedIn ? 'Open your dashboard' : plan.buttonText}
                  </a>
                ) : plan.billing === 'recurring' ? (
                  <>
                    <div className="cycle-monthly">
                      <CheckoutButton priceId={plan.priceIds?.monthly} label={`${plan.buttonText} monthly`} from={from} primary={Boolean(plan.isPopular)} />
                    </div>
                    {plan.priceIds?.yearly ? (
                      <div className="cycle-yearly">
                        <CheckoutButton priceId={plan.priceIds.yearly} label={`${plan.buttonText} yearly`} from={from} primary={Boolean(plan.isPopular)} />
                      </div>
                    ) : null}
                  </>
                ) : upgrade ? (
                  <UpgradeButton offer={upgrade} from={from} primary={Boolean(plan.isPopular)} />
                ) : (
                  <CheckoutButton priceId={plan.priceIds?.monthly} label={plan.buttonText} from={from} primary={Boolean(plan.isPopular)} />
                )}
              </div>
            </article>
          )
        })}
      </div>
      <p className="pricing-footnote">
        Prices in US dollars. Lifetime plans are paid once; the subscription renews until you cancel it in the billing portal.
      </p>
    </div>
  )
}

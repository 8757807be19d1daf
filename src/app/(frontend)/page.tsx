import config from '@payload-config'
import { getPayload } from 'payload'

import { formatPlanPrice } from '../../plans/format'

// Plans change in the admin: render on every request, never at build time.
export const dynamic = 'force-dynamic'

const HomePage = async () => {
  const payload = await getPayload({ config })
  const { docs: plans } = await payload.find({
    collection: 'plans',
    where: { active: { equals: true } },
    sort: 'order',
    limit: 20,
    depth: 0,
    overrideAccess: false,
  })
  return (
    <>
      <h1>Ship your web application faster</h1>
      <p>One purchase, the whole starter kit: authentication, billing, an admin UI and more.</p>
      <section id="pricing">
        <h2>Pricing</h2>
        <div className="plans">
          {plans.map((plan) => (
            <article key={plan.id} className={plan.isPopular ? 'plan popular' : 'plan'} data-plan={plan.slug}>
              <h3>{plan.name}</h3>
              <div className="price">{formatPlanPrice(plan)}</div>
              <p>{plan.description}</p>
              <ul>
                {(plan.features ?? []).map((feature) => (
                  <li key={feature.id ?? feature.text}>{feature.text}</li>
                ))}
              </ul>
              <button type="button" disabled={!plan.isFree && !plan.priceIds?.monthly}>
                {plan.buttonText}
              </button>
            </article>
          ))}
        </div>
      </section>
    </>
  )
}

export default HomePage

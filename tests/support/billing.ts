import type { CollectionSlug, DataFromCollectionSlug, Payload, Where } from 'payload'
import type Stripe from 'stripe'

import { seedPlans } from '../../src/plans/seed'
import type { PayOutcome } from '@starter-kit/standins/processor'
import { PRICE_IDS, PRICES, standIn } from './billing-env'
import { api, type TestUser } from './payload'

export const seedStandInPlans = (payload: Payload) => seedPlans(payload, PRICE_IDS)

/** Buy a price the way a customer does: our checkout endpoint, then the stand-in's "Pay" button. */
export const buy = async (
  priceId: string,
  options: { as?: TestUser | null; email?: string; outcome?: PayOutcome } = {},
) => {
  const checkout = await api<{ url: string; id: string }>('POST', '/checkout_sessions', {
    as: options.as ?? null,
    body: { priceId },
  })
  if (checkout.status !== 200) throw new Error(`checkout failed: ${checkout.status} ${JSON.stringify(checkout.body)}`)
  const events = await standIn.pay(checkout.body.id, {
    email: options.email ?? options.as?.email,
    outcome: options.outcome,
  })
  return { sessionId: checkout.body.id, events }
}

/** Every delivery of every event answered 200 (a 500 means the service failed to apply one). */
export const deliveryStatuses = () =>
  standIn.events().flatMap((record) => record.deliveries.map((delivery) => `${record.event.type}:${delivery.status}`))

/** Every row of a collection matching `where`, unpopulated. */
export const rows = async <Slug extends CollectionSlug>(
  payload: Payload,
  collection: Slug,
  where: Where = {},
): Promise<DataFromCollectionSlug<Slug>[]> =>
  (await payload.find({ collection, where, sort: 'id', limit: 1000, depth: 0, pagination: false })).docs

/**
 * A Standard checkout made on the processor as src/billing/checkout.ts makes it (metadata included),
 * anonymous unless it names the buyer's account; not paid yet. It does not go through the service, so it
 * spends none of the client's checkout allowance.
 */
export const standardCheckout = (processor: Stripe, email: string, userId?: number) =>
  processor.checkout.sessions.create({
    mode: 'payment',
    line_items: [{ price: PRICES.standard, quantity: 1 }],
    metadata: {
      plan_id: 'standard',
      price_id: PRICES.standard,
      billing_cycle: 'lifetime',
      ...(userId ? { user_id: String(userId) } : {}),
    },
    ...(userId ? {} : { customer_email: email }),
    success_url: 'http://localhost:3000/success?session_id={CHECKOUT_SESSION_ID}',
    cancel_url: 'http://localhost:3000/pricing',
  })

/** standardCheckout, paid on the stand-in, its events applied. The session's id. */
export const paidStandardCheckout = async (processor: Stripe, email: string, userId?: number): Promise<string> => {
  const session = await standardCheckout(processor, email, userId)
  await standIn.pay(session.id, { email })
  await standIn.settled()
  return session.id
}

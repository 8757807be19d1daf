/**
 * Helpers for the webhook's tests (tests/int/billing-webhook.test.ts, tests/int/webhook-events/):
 * make the processor stand-in's events with delivery switched off, then deliver exactly the ones a
 * test is about, through the real webhook endpoint. Import './billing-env' first.
 */
import type { Payload, Where } from 'payload'
import type Stripe from 'stripe'
import { beforeAll } from 'vitest'

import type { EventOf } from '../../src/billing/webhook/define'
import { service, standIn } from './billing-env'
import { buy, rows, seedStandInPlans } from './billing'
import { createUser, usePayload } from './payload'

export const WEBHOOK = `${service.url}/api/webhooks/processor`

/** Payload for a test file, with the stand-in's plans seeded. */
export const usePayloadWithPlans = () => {
  const payload = usePayload()
  beforeAll(async () => {
    await seedStandInPlans(payload())
  })
  return payload
}

export const uniqueEmail = (label: string) => `${label}-${Math.random().toString(36).slice(2, 10)}@example.test`

/** Run a stand-in action with delivery switched off: its events (and any it sends later) are made, not sent. */
export const quietly = async <T>(action: () => Promise<T>): Promise<T> => {
  standIn.setWebhookUrl(null)
  try {
    const result = await action()
    await standIn.settled()
    return result
  } finally {
    standIn.setWebhookUrl(WEBHOOK)
  }
}

/** Pay with delivery switched off, so a test decides how the events arrive. */
export const payQuietly = (
  priceId: string,
  email: string,
  outcome?: 'succeeded' | 'async_succeeded' | 'async_failed',
) =>
  quietly(async () => {
    const checkout = await fetch(`${service.url}/api/checkout_sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': `quiet-${Math.random()}` },
      body: JSON.stringify({ priceId }),
    }).then((response) => response.json() as Promise<{ id: string }>)
    return standIn.pay(checkout.id, { email, outcome })
  })

/** A new customer buys a price; `quiet`: the events are made, not delivered. */
export const customerBuys = async (payload: Payload, priceId: string, { quiet = false } = {}) => {
  const buyer = await createUser(payload, 'customer')
  const { sessionId, events } = await (quiet ? quietly(() => buy(priceId, { as: buyer })) : buy(priceId, { as: buyer }))
  return { buyer, sessionId, events }
}

/** A new customer with a delivered, active subscription. */
export const customerSubscribes = async (payload: Payload, priceId: string) => {
  const { buyer, events } = await customerBuys(payload, priceId)
  await standIn.settled()
  return { buyer, events, subscriptionId: objectOf(events, 'customer.subscription.created').id }
}

/** The first event of a type among these, typed by its type. */
export const eventOf = <Type extends Stripe.Event['type']>(events: Stripe.Event[], type: Type): EventOf<Type> => {
  const found = events.find((event): event is EventOf<Type> => event.type === type)
  if (!found) throw new Error(`no ${type} among ${events.map((event) => event.type).join(', ')}`)
  return found
}

/** The object of the first event of a type among these, typed by the type. */
export function objectOf<Type extends Stripe.Event['type']>(
  events: Stripe.Event[],
  type: Type,
): EventOf<Type>['data']['object']
export function objectOf(events: Stripe.Event[], type: Stripe.Event['type']) {
  return eventOf(events, type).data.object
}

/** Deliver events again through the webhook, one after another: the status of each. */
export const deliver = async (...events: Stripe.Event[]) => {
  const statuses: (number | null)[] = []
  for (const event of events) statuses.push((await standIn.redeliver(event.id)).status)
  return statuses
}

/** The processor_events row of an event. */
export const eventRow = async (payload: Payload, event: Stripe.Event) =>
  (await rows(payload, 'processor_events', { eventId: { equals: event.id } }))[0]

/** Every row the webhook writes for a buyer (a user id) or a checkout email; analytics as sorted names. */
const ownedBy = (owner: number | string): Where =>
  typeof owner === 'number' ? { user: { equals: owner } } : { email: { equals: owner } }

export const effectsFor = async (payload: Payload, owner: number | string) => {
  const where = ownedBy(owner)
  return {
    purchases: await rows(payload, 'one_time_purchases', where),
    subscriptions: await rows(payload, 'user_subscriptions', where),
    licenses: await rows(payload, 'licenses', where),
    payments: await rows(payload, 'payment_history', where),
    analytics: (await rows(payload, 'analytics_events', where)).map((event) => event.name).sort(),
  }
}

/** The analytics events of one name for a buyer (a user id) or a checkout email, oldest first. */
export const analyticsNamed = (payload: Payload, owner: number | string, name: string) =>
  rows(payload, 'analytics_events', { and: [ownedBy(owner), { name: { equals: name } }] })

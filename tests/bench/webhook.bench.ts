/**
 * `npm run bench`: how fast the service turns processor events into records, measured in one run so
 * the numbers compare (this machine is shared; read the ratios, not the absolute values).
 */
import '../support/billing-env'

import type Stripe from 'stripe'
import { afterAll, bench, describe } from 'vitest'

import { getPayload } from 'payload'

import config from '../../payload.config'
import { closePayload } from '../../src/db/bootstrap'
import { canAccessFeature } from '../../src/licensing/entitlements'
import { seedPlans } from '../../src/plans/seed'
import { PRICE_IDS, PRICES, service, standIn } from '../support/billing-env'

const payload = await getPayload({ config })
afterAll(() => closePayload(payload))
await seedPlans(payload, PRICE_IDS)

/** Paid checkouts whose events were recorded by the stand-in but not delivered yet. */
const pending: Stripe.Event[] = []
const prepare = async (count: number) => {
  standIn.setWebhookUrl(null)
  for (let index = 0; index < count; index += 1) {
    const response = await fetch(`${service.url}/api/checkout_sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': `bench-${index}-${Math.random()}` },
      body: JSON.stringify({ priceId: PRICES.standard }),
    })
    const { id } = (await response.json()) as { id: string }
    const events = await standIn.pay(id, { email: `bench-${index}@example.test` })
    pending.push(events.find((event) => event.type === 'checkout.session.completed')!)
  }
  standIn.setWebhookUrl(`${service.url}/api/webhooks/processor`)
}
await prepare(300)
const processed = pending[0]!
await standIn.redeliver(processed.id)
let next = 1

const buyer = (await payload.find({ collection: 'licenses', limit: 1, where: { status: { equals: 'active' } } })).docs[0]
const userEmail = buyer?.email ?? 'bench-0@example.test'
const user = await payload.create({ collection: 'users', data: { email: `owner-${userEmail}`, password: 'bench-password-1', roles: ['customer'] } })
if (buyer) await payload.update({ collection: 'licenses', id: buyer.id, data: { user: user.id } })

describe('webhook deliveries (signed, over HTTP, through the whole pipeline)', () => {
  bench(
    'a new checkout.session.completed: verify, record, re-read from the processor, purchase + license + email job + analytics',
    async () => {
      const event = pending[next++]
      if (!event) throw new Error('ran out of prepared events: prepare more')
      const { status } = await standIn.redeliver(event.id)
      if (status !== 200) throw new Error(`delivery answered ${status}`)
    },
    { time: 2_000, iterations: 50, warmupIterations: 5 },
  )

  bench(
    'a duplicate of a processed event: verify, find it recorded, answer 200',
    async () => {
      const { status } = await standIn.redeliver(processed.id)
      if (status !== 200) throw new Error(`delivery answered ${status}`)
    },
    { time: 2_000, iterations: 50, warmupIterations: 5 },
  )
})

describe('entitlements', () => {
  bench('canAccessFeature for a licensed user', async () => {
    await canAccessFeature(payload, user.id, 'templates')
  }, { time: 1_000 })
})

describe('sign-in answers take about as long for unknown emails as for wrong passwords (no enumeration by timing)', () => {
  const login = (email: string) =>
    fetch(`${service.url}/api/users/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': `198.18.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}` },
      body: JSON.stringify({ email, password: 'wrong-password-123' }),
    })
  bench('a known email with a wrong password', async () => {
    // A fresh known account each time, so neither the lockout nor the per-account limit kicks in.
    const known = await payload.create({ collection: 'users', data: { email: `known-${Math.random()}@example.test`, password: 'the-right-password', roles: ['customer'] } })
    const response = await login(known.email)
    if (response.status !== 401) throw new Error(`expected 401, got ${response.status}`)
  }, { time: 2_000, iterations: 20 })
  bench('an unknown email', async () => {
    await payload.create({ collection: 'users', data: { email: `filler-${Math.random()}@example.test`, password: 'the-right-password', roles: ['customer'] } })
    const response = await login(`unknown-${Math.random()}@example.test`)
    if (response.status !== 401) throw new Error(`expected 401, got ${response.status}`)
  }, { time: 2_000, iterations: 20 })
})

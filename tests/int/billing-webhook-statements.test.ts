import './../support/billing-env'

import { beforeAll, describe, expect, it } from 'vitest'

import { PRICES, service, standIn } from '../support/billing-env'
import { rows, seedStandInPlans } from '../support/billing'
import { usePayload } from '../support/payload'
import { recordRun } from '../support/queries'

const payload = usePayload()
const WEBHOOK = `${service.url}/api/webhooks/processor`

beforeAll(async () => {
  await seedStandInPlans(payload())
})

const payQuietly = async (priceId: string, email: string) => {
  standIn.setWebhookUrl(null)
  try {
    const checkout = await fetch(`${service.url}/api/checkout_sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': `quiet-${Math.random()}` },
      body: JSON.stringify({ priceId }),
    }).then((response) => response.json() as Promise<{ id: string }>)
    return await standIn.pay(checkout.id, { email })
  } finally {
    standIn.setWebhookUrl(WEBHOOK)
  }
}

/** Statements the ORM built (Payload's Local API): drizzle quotes every identifier. */
const builtByOrm = (statement: string) => /^(select|insert|update|delete) .*"/i.test(statement.trim())

describe('the webhook hot path (statements on the pool, as in tests/support/queries.ts)', () => {
  it('a paid checkout.session.completed: 15 statements in one transaction, none built by the ORM but the email job', async () => {
    const email = `stmts-${Math.random().toString(36).slice(2, 10)}@example.test`
    const events = await payQuietly(PRICES.standard, email)
    const completed = events.find((event) => event.type === 'checkout.session.completed')!
    const { statements } = await recordRun(payload(), async () => expect((await standIn.redeliver(completed.id)).status).toBe(200))
    // Before the webhook's rows were written in SQL (src/billing/store.ts): 19, ten of them ORM-built.
    expect(statements.length).toBeLessThanOrEqual(15)
    expect(statements.filter(builtByOrm).every((statement) => statement.includes('"payload_jobs"'))).toBe(true)
    expect(statements.filter((statement) => /^(begin|commit)/i.test(statement.trim()))).toEqual(['begin', 'commit'])

    const [license] = await rows(payload(), 'licenses', { email: { equals: email } })
    expect(license).toMatchObject({ status: 'active', source: 'one_time_purchase', override: 'none' })
    const [purchase] = await rows(payload(), 'one_time_purchases', { email: { equals: email } })
    expect(purchase).toMatchObject({ status: 'succeeded', processorCheckoutSessionId: expect.any(String), refundedAmount: 0, disputeStatus: 'none' })
    expect(license!.oneTimePurchase).toBe(purchase!.id)
    expect(typeof purchase!.grantedAt).toBe('string')

    // A redelivery answers from the event's row alone.
    const again = await recordRun(payload(), async () => expect((await standIn.redeliver(completed.id)).status).toBe(200))
    expect(again.statements).toHaveLength(1)
    expect(await rows(payload(), 'licenses', { email: { equals: email } })).toHaveLength(1)
  })
})

import './../support/billing-env'

import { createLocalReq } from 'payload'
import { beforeAll, describe, expect, it, vi } from 'vitest'

import { billingRuntimeOf } from '../../src/billing/runtime'
import { EVENT_HANDLERS } from '../../src/billing/webhook/events'
import { APPLYING_AT_ONCE } from '../../src/billing/webhook/process'
import { PRICES, smtp, standIn } from '../support/billing-env'
import { rows, seedStandInPlans, standardCheckout } from '../support/billing'
import { waitForLockWaiters, waitUntil } from '../support/locks'
import { createUser, usePayload } from '../support/payload'
import { recordDeliveries } from '../support/queries'
import { effectsFor, objectOf, payQuietly, quietly, uniqueEmail, WEBHOOK } from '../support/webhook'

const payload = usePayload()

beforeAll(async () => {
  await seedStandInPlans(payload())
})

/** POST a body to the webhook with the signature the stand-in computes (or a given header). */
const post = async (body: string, signature: string | null = standIn.sign(body)) => {
  const response = await fetch(WEBHOOK, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(signature === null ? {} : { 'stripe-signature': signature }) },
    body,
  })
  return {
    status: response.status,
    body: (await response.json()) as { received?: boolean; outcome?: string; errors?: { code: string }[] },
  }
}

const emailJobs = async (licenseId: number) =>
  (
    await payload().find({
      collection: 'payload-jobs',
      where: { taskSlug: { equals: 'sendLicenseEmail' } },
      limit: 1000,
    })
  ).docs.filter((job) => (job.input as { licenseId?: number }).licenseId === licenseId)

describe('signature and mode checks over HTTP', () => {
  const body = JSON.stringify({
    id: 'evt_sig_check',
    object: 'event',
    type: 'checkout.session.completed',
    livemode: false,
    created: 1,
    data: { object: { id: 'cs_x' } },
  })

  // Headers are made when the test runs: a timestamp taken earlier would drift toward the window.
  it.each([
    ['missing', () => null],
    ['malformed', () => 'nonsense'],
    ['wrong secret', () => standIn.sign(body, { secret: 'whsec_wrong' })],
    ['too old', () => standIn.sign(body, { timestamp: Math.floor(Date.now() / 1000) - 360 })],
    ['in the future', () => standIn.sign(body, { timestamp: Math.floor(Date.now() / 1000) + 360 })],
  ])('400 invalid_signature when %s, and nothing recorded', async (_name, header) => {
    const response = await post(body, header())
    expect(response.status).toBe(400)
    expect(response.body.errors?.[0]?.code).toBe('invalid_signature')
    expect(await rows(payload(), 'processor_events', { eventId: { equals: 'evt_sig_check' } })).toHaveLength(0)
  })

  it('400 livemode_mismatch for a live event sent to a test-mode service', async () => {
    const live = JSON.stringify({
      id: 'evt_live_1',
      object: 'event',
      type: 'checkout.session.completed',
      livemode: true,
      created: 1,
      data: { object: { id: 'cs_x' } },
    })
    const response = await post(live)
    expect(response.status).toBe(400)
    expect(response.body.errors?.[0]?.code).toBe('livemode_mismatch')
  })

  it('applies the documented event types, one handler each (src/billing/webhook/events/); any other is ignored', () => {
    expect(Object.keys(EVENT_HANDLERS).sort()).toEqual([
      'charge.dispute.closed',
      'charge.dispute.created',
      'charge.refunded',
      'checkout.session.async_payment_failed',
      'checkout.session.async_payment_succeeded',
      'checkout.session.completed',
      'checkout.session.expired',
      'customer.subscription.created',
      'customer.subscription.deleted',
      'customer.subscription.updated',
      'invoice.paid',
      'invoice.payment_failed',
      'invoice.payment_succeeded',
      'payment_intent.succeeded',
    ])
    expect(EVENT_HANDLERS['customer.tax_id.created']).toBeUndefined()
  })

  it('records an unknown type as ignored and answers 200', async () => {
    const unknown = JSON.stringify({
      id: 'evt_unknown_1',
      object: 'event',
      type: 'customer.tax_id.created',
      livemode: false,
      created: 1,
      data: { object: { id: 'txi_1' } },
    })
    const response = await post(unknown)
    expect(response).toEqual({ status: 200, body: { received: true, outcome: 'ignored' } })
    const [row] = await rows(payload(), 'processor_events', { eventId: { equals: 'evt_unknown_1' } })
    expect(row).toMatchObject({ status: 'ignored', type: 'customer.tax_id.created', objectId: 'txi_1' })
    expect((await post(unknown)).body.outcome).toBe('ignored')
  })
})

describe('exactly once', () => {
  it('the same event five times in a row has one effect', async () => {
    const email = uniqueEmail('seq')
    const events = await payQuietly(PRICES.standard, email)
    const completed = events.find((event) => event.type === 'checkout.session.completed')!
    const outcomes = []
    for (let attempt = 0; attempt < 5; attempt += 1) outcomes.push((await standIn.redeliver(completed.id)).status)
    expect(outcomes).toEqual([200, 200, 200, 200, 200])
    const effects = await effectsFor(payload(), email)
    expect(effects.purchases).toHaveLength(1)
    expect(effects.licenses).toHaveLength(1)
    expect(effects.analytics).toEqual(['license_granted', 'purchase_completed'])
    expect(await emailJobs(effects.licenses[0]!.id)).toHaveLength(1)
    const [row] = await rows(payload(), 'processor_events', { eventId: { equals: completed.id } })
    expect(row).toMatchObject({ status: 'processed', attempts: 1 })
  })

  it('the same event five times at once has one effect', async () => {
    const email = uniqueEmail('concurrent')
    const events = await payQuietly(PRICES.ultimate, email)
    const completed = events.find((event) => event.type === 'checkout.session.completed')!
    const outcomes = await Promise.all(Array.from({ length: 5 }, () => standIn.redeliver(completed.id)))
    expect(outcomes.map((outcome) => outcome.status)).toEqual([200, 200, 200, 200, 200])
    const effects = await effectsFor(payload(), email)
    expect(effects.purchases).toHaveLength(1)
    expect(effects.licenses).toHaveLength(1)
    expect(effects.analytics).toEqual(['license_granted', 'purchase_completed'])
    expect(await emailJobs(effects.licenses[0]!.id)).toHaveLength(1)
  })

  it('the events of one purchase racing each other still give one purchase and one license', async () => {
    const email = uniqueEmail('race')
    const events = await payQuietly(PRICES.standard, email)
    await Promise.all(events.map((event) => standIn.redeliver(event.id)))
    const effects = await effectsFor(payload(), email)
    expect(effects.purchases).toHaveLength(1)
    expect(effects.licenses).toHaveLength(1)
    expect(effects.payments).toHaveLength(1)
    expect(effects.analytics).toEqual(['license_granted', 'payment_succeeded', 'purchase_completed'])
  })
})

describe('a burst of deliveries', () => {
  it(`applies at most ${APPLYING_AT_ONCE} events at once; the rest wait their turn and are applied once each`, async () => {
    const emails = Array.from({ length: 10 }, (_, index) => uniqueEmail(`burst${index}`))
    // Made on the processor directly (as the checkout endpoint makes them), its events not delivered: ten
    // checkouts through the service would spend half of this client's checkout allowance.
    const { processor } = billingRuntimeOf(payload()).require()
    const completed = []
    for (const email of emails) {
      const events = await quietly(async () => standIn.pay((await standardCheckout(processor, email)).id, { email }))
      completed.push(events.find((event) => event.type === 'payment_intent.succeeded')!)
    }
    // Every read of a payment takes 600 ms, as from a slow processor (the event's handler reads it fresh).
    const DELAY_MS = 600
    standIn.failNext({ method: 'GET', path: /^\/v1\/payment_intents\//, delayMs: DELAY_MS, count: 100 })
    try {
      const statuses = await Promise.all(completed.map(async (event) => (await standIn.redeliver(event.id)).status))
      expect(statuses).toEqual(completed.map(() => 200))
    } finally {
      standIn.clearFailures()
    }
    const recorded = (
      await Promise.all(
        completed.map((event) => rows(payload(), 'processor_events', { eventId: { equals: event.id } })),
      )
    ).map(([row]) => row!)
    expect(recorded.map((row) => [row.status, row.attempts])).toEqual(completed.map(() => ['processed', 1]))
    // processedAt is the applying transaction's start, right after its read of the payment. An event
    // waiting for a turn starts its read only when one of the first ones is done: any five in a row span
    // at least one read. Without the turns, all ten reads would end together.
    const processed = recorded.map((row) => new Date(String(row.processedAt)).getTime()).sort((a, b) => a - b)
    for (let index = 0; index + APPLYING_AT_ONCE < processed.length; index += 1) {
      expect(processed[index + APPLYING_AT_ONCE]! - processed[index]!).toBeGreaterThanOrEqual(DELAY_MS - 50)
    }
  })
})

describe('the license email goes out once', () => {
  it('even when two queue runners take the same job at once', async () => {
    const email = uniqueEmail('tworunners')
    await payQuietly(PRICES.standard, email).then((events) =>
      Promise.all(events.map((event) => standIn.redeliver(event.id))),
    )
    const [license] = (await effectsFor(payload(), email)).licenses
    // What each runner executes for the job: the task's handler, three times at once.
    const task = payload().config.jobs.tasks?.find((candidate) => candidate.slug === 'sendLicenseEmail')
    const handler = task!.handler as (args: { input: { licenseId: number }; req: unknown }) => Promise<unknown>
    const runOnce = async () => handler({ input: { licenseId: license!.id }, req: await createLocalReq({}, payload()) })
    // The first runner to send this license's email is held at the mail server's door (inside its
    // transaction, holding the license's email lock) until the other two are seen waiting for that lock.
    const forThisLicense = (message: unknown) => JSON.stringify(message).includes(license!.key)
    let letSend = () => {}
    const sendMayGo = new Promise<void>((resolve) => (letSend = resolve))
    const send = payload().sendEmail
    let sendsOfTheKey = 0
    const sends = vi.spyOn(payload(), 'sendEmail').mockImplementation(async (message) => {
      if (forThisLicense(message)) {
        sendsOfTheKey += 1
        await sendMayGo
      }
      return send(message)
    })
    try {
      const runners = [runOnce(), runOnce(), runOnce()]
      try {
        await waitUntil(() => sendsOfTheKey > 0, { message: 'no runner reached the send of the license email' })
        await waitForLockWaiters({
          advisoryKey: `license-email:${license!.id}`,
          count: 2,
          message:
            "the other two runners never waited on the license's email lock while one was sending: the interleaving was not proven",
        })
      } finally {
        letSend()
        await Promise.allSettled(runners)
      }
      await Promise.all(runners)
    } finally {
      sends.mockRestore()
    }
    await smtp.waitFor((message) => message.text?.includes(license!.key) ?? false)
    // Every send the runners made has been answered by the mail server (it keeps a message before it
    // answers): the mailbox holds all of them, and no later one can come.
    expect(sendsOfTheKey).toBe(1)
    expect(smtp.messages.filter((message) => message.text?.includes(license!.key))).toHaveLength(1)
    const stored = await payload().findByID({ collection: 'licenses', id: license!.id })
    expect(stored.emailSentAt).toBeTruthy()
  })
})

describe('delivery order', () => {
  const shuffle = <T>(items: T[], seed: number) => {
    const result = [...items]
    let state = seed
    for (let index = result.length - 1; index > 0; index -= 1) {
      state = (state * 1103515245 + 12345) % 2 ** 31
      const other = state % (index + 1)
      ;[result[index], result[other]] = [result[other]!, result[index]!]
    }
    return result
  }

  it("any order of a subscription's life (start, renewal, failed payment, cancellation) ends in the same state", async () => {
    const signatures = new Set<string>()
    for (const seed of [1, 2, 3, 4, 5]) {
      const email = uniqueEmail(`order${seed}`)
      standIn.setWebhookUrl(null)
      const started = await payQuietly(PRICES.proMonthly, email)
      standIn.setWebhookUrl(null)
      const subscriptionId = objectOf(started, 'customer.subscription.created').id
      const later = [
        ...(await standIn.renewSubscription(subscriptionId)),
        ...(await standIn.failInvoicePayment(subscriptionId)),
        ...(await standIn.cancelSubscription(subscriptionId)),
      ]
      await standIn.settled()
      standIn.setWebhookUrl(WEBHOOK)
      for (const event of shuffle([...started, ...later], seed)) {
        expect((await standIn.redeliver(event.id)).status).toBe(200)
      }
      const effects = await effectsFor(payload(), email)
      expect(effects.subscriptions).toHaveLength(1)
      signatures.add(
        JSON.stringify({
          subscription: effects.subscriptions.map((row) => [row.status, row.billingCycle]),
          licenses: effects.licenses.map((row) => row.status),
          payments: effects.payments.map((row) => [row.paymentType, row.status]).sort(),
          analytics: effects.analytics.filter((name) => name !== 'subscription_updated'),
        }),
      )
    }
    expect([...signatures]).toEqual([
      JSON.stringify({
        subscription: [['canceled', 'monthly']],
        licenses: ['expired'],
        payments: [
          ['recurring', 'failed'],
          ['recurring', 'succeeded'],
          ['recurring', 'succeeded'],
        ],
        analytics: [
          'license_granted',
          'payment_failed',
          'payment_succeeded',
          'payment_succeeded',
          'subscription_canceled',
          'subscription_started',
        ],
      }),
    ])
  })
})

describe('failures never lose a purchase', () => {
  it('a database error mid-event rolls everything back; the retry applies it once', async () => {
    const email = uniqueEmail('dberror')
    const events = await payQuietly(PRICES.standard, email)
    const completed = events.find((event) => event.type === 'checkout.session.completed')!
    const pool = payload().db.pool
    await pool.query(
      `CREATE OR REPLACE FUNCTION fail_license_insert() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'injected failure'; END $$ LANGUAGE plpgsql`,
    )
    await pool.query(
      `CREATE TRIGGER fail_license_insert BEFORE INSERT ON licenses FOR EACH ROW EXECUTE FUNCTION fail_license_insert()`,
    )
    try {
      expect((await standIn.redeliver(completed.id)).status).toBe(500)
      const effects = await effectsFor(payload(), email)
      expect(effects.purchases).toHaveLength(0)
      expect(effects.licenses).toHaveLength(0)
      expect(effects.analytics).toEqual([])
      const [row] = await rows(payload(), 'processor_events', { eventId: { equals: completed.id } })
      expect(row).toMatchObject({ status: 'failed', attempts: 1 })
      expect(row?.lastError).toMatch(/injected failure/)
      // the failed query's parameters (email, license key) never reach the event log
      expect(row?.lastError).not.toContain(email)
      expect(row?.lastError).not.toMatch(/KIT-/)
    } finally {
      await pool.query('DROP TRIGGER fail_license_insert ON licenses')
    }
    expect((await standIn.redeliver(completed.id)).status).toBe(200)
    const effects = await effectsFor(payload(), email)
    expect(effects.purchases).toHaveLength(1)
    expect(effects.licenses).toHaveLength(1)
    const [row] = await rows(payload(), 'processor_events', { eventId: { equals: completed.id } })
    expect(row).toMatchObject({ status: 'processed', attempts: 2, lastError: null })
  })

  it('the processor failing while we read the current object answers 500, and the retry succeeds', async () => {
    const email = uniqueEmail('fetchfail')
    const events = await payQuietly(PRICES.standard, email)
    const succeeded = events.find((event) => event.type === 'payment_intent.succeeded')!
    standIn.failNext({ method: 'GET', path: /^\/v1\/payment_intents\//, status: 500, count: 2 })
    expect((await standIn.redeliver(succeeded.id)).status).toBe(500)
    standIn.clearFailures()
    expect((await effectsFor(payload(), email)).purchases).toHaveLength(0)
    expect((await standIn.redeliver(succeeded.id)).status).toBe(200)
    expect((await effectsFor(payload(), email)).licenses).toHaveLength(1)
  })

  it('staff re-run a failed event from the admin', async () => {
    const email = uniqueEmail('rerun')
    const events = await payQuietly(PRICES.standard, email)
    const completed = events.find((event) => event.type === 'payment_intent.succeeded')!
    standIn.failNext({ method: 'GET', path: /^\/v1\/payment_intents\//, status: 500, count: 2 })
    expect((await standIn.redeliver(completed.id)).status).toBe(500)
    standIn.clearFailures()
    const [row] = await rows(payload(), 'processor_events', { eventId: { equals: completed.id } })
    const { api } = await import('../support/payload')
    const customer = await createUser(payload(), 'customer')
    expect((await api('POST', `/processor_events/${row!.id}/retry`, { as: customer })).status).toBe(403)
    const support = await createUser(payload(), 'support')
    const retried = await api('POST', `/processor_events/${row!.id}/retry`, { as: support })
    expect(retried.status).toBe(200)
    expect(retried.body.outcome).toBe('processed')
    expect((await effectsFor(payload(), email)).licenses).toHaveLength(1)
    // again: already processed, nothing more happens
    expect((await api('POST', `/processor_events/${row!.id}/retry`, { as: support })).body).toEqual({
      outcome: 'duplicate',
      status: 'processed',
    })
    expect((await effectsFor(payload(), email)).licenses).toHaveLength(1)
    expect((await api('POST', `/processor_events/${row!.id}/retry`)).status).toBe(401)
    expect((await api('POST', '/processor_events/999999/retry', { as: support })).status).toBe(404)
  })

  it('SMTP down delays the license email without touching the purchase; it is sent once SMTP is back', async () => {
    const email = uniqueEmail('smtpdown')
    smtp.setDown(true)
    try {
      await payQuietly(PRICES.standard, email).then((events) =>
        Promise.all(events.map((event) => standIn.redeliver(event.id))),
      )
      const effects = await effectsFor(payload(), email)
      expect(effects.licenses).toMatchObject([{ status: 'active' }])
      const [queued] = await emailJobs(effects.licenses[0]!.id)
      await payload().jobs.runByID({ id: queued!.id })
      const [job] = await emailJobs(effects.licenses[0]!.id)
      expect(job?.hasError ?? false).toBe(false)
      expect(job?.completedAt ?? null).toBeNull()
      expect((job?.log ?? []).some((entry) => entry.state === 'failed')).toBe(true)
      expect(smtp.messages.some((message) => message.text?.includes(effects.licenses[0]!.key))).toBe(false)
    } finally {
      smtp.setDown(false)
    }
    const [license] = (await effectsFor(payload(), email)).licenses
    const [job] = await emailJobs(license!.id)
    // Run the job again until the email is in the mailbox (a run that finds the job taken does nothing).
    await waitUntil(
      async () => {
        if (smtp.messages.some((message) => message.text?.includes(license!.key))) return true
        await payload().jobs.runByID({ id: job!.id })
        return smtp.messages.some((message) => message.text?.includes(license!.key))
      },
      { message: 'the license email was not sent once SMTP was back' },
    )
    await smtp.waitFor((message) => message.text?.includes(license!.key) ?? false)
    expect(smtp.messages.filter((message) => message.text?.includes(license!.key))).toHaveLength(1)
  })
})

/**
 * Statements the ORM built (Payload's Local API): drizzle's query builder writes its keywords in lower
 * case; our SQL (src/billing/store.ts, typed against src/db/schema.generated.ts) writes them in upper case.
 */
const builtByOrm = (statement: string) => /^(select|insert|update|delete) /.test(statement.trim())

describe("the webhook hot path (the delivery's own statements, as in tests/support/queries.ts)", () => {
  it('a paid checkout.session.completed: at most 9 statements, 7 of them one transaction, none built by the ORM', async () => {
    const email = `stmts-${Math.random().toString(36).slice(2, 10)}@example.test`
    const events = await payQuietly(PRICES.standard, email)
    const completed = events.find((event) => event.type === 'checkout.session.completed')!
    const statements = await recordDeliveries(payload(), async () =>
      expect((await standIn.redeliver(completed.id)).status).toBe(200),
    )
    // Before the webhook's rows were written in SQL (src/billing/store.ts): 19, ten of them ORM-built; 17
    // after, the email job's still queued by the ORM. Now: the event recorded; begin; its row locked; the
    // payment intent's and the buyer email's locks; the buyer, plan and purchase read; the purchase; the
    // license (asking whether an endpoint wants license.created); the email job, the analytics events and
    // the event marked processed, in one statement; commit.
    expect(statements.length).toBeLessThanOrEqual(9)
    expect(statements.filter(builtByOrm)).toEqual([])
    expect(statements.filter((statement) => /^(begin|commit)/i.test(statement.trim()))).toEqual(['begin', 'commit'])
    const last = statements.at(-2)!
    for (const table of ['"payload_jobs"', '"analytics_events"', '"processor_events"']) expect(last).toContain(table)

    const [license] = await rows(payload(), 'licenses', { email: { equals: email } })
    expect(license).toMatchObject({ status: 'active', source: 'one_time_purchase', override: 'none' })
    const [purchase] = await rows(payload(), 'one_time_purchases', { email: { equals: email } })
    expect(purchase).toMatchObject({
      status: 'succeeded',
      processorCheckoutSessionId: expect.any(String),
      refundedAmount: 0,
      disputeStatus: 'none',
    })
    expect(license!.oneTimePurchase).toBe(purchase!.id)
    expect(typeof purchase!.grantedAt).toBe('string')

    // A redelivery answers from the event's row alone.
    const again = await recordDeliveries(payload(), async () =>
      expect((await standIn.redeliver(completed.id)).status).toBe(200),
    )
    expect(again).toHaveLength(1)
    expect(await rows(payload(), 'licenses', { email: { equals: email } })).toHaveLength(1)
  })
})

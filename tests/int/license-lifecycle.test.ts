import './../support/billing-env'

import { createLocalJWKSet, decodeJwt, jwtVerify } from 'jose'
import type Stripe from 'stripe'
import { beforeAll, describe, expect, it } from 'vitest'

import { billingRuntimeOf } from '../../src/billing/runtime'
import { processEvent } from '../../src/billing/webhook/process'
import type { License } from '../../src/payload-types'
import { codeHost, PRICES, service, smtp, standIn } from '../support/billing-env'
import { buy, rows, seedStandInPlans } from '../support/billing'
import { api, createUser, graphql, type TestUser, usePayload } from '../support/payload'
import { createRelease } from '../support/releases'
import { quietly } from '../support/webhook'

/**
 * A license's life (docs/LICENSING.md) end to end: the real endpoints, the processor stand-in
 * over HTTP with the real SDK, and its webhooks into the service.
 */
const payload = usePayload()
const settings = { graceDays: 7 }
const processor = () => billingRuntimeOf(payload()).require().processor

/** Standard licenses bought while 2.1.0 was the newest stable release, before 3.0.0 came out. */
const early: { buyer: TestUser; license: License }[] = []

beforeAll(async () => {
  await seedStandInPlans(payload())
  // Standard's window opens at the newest stable major at grant: 2, for the licenses bought now.
  for (const version of ['1.0.0', '2.0.0', '2.1.0'])
    await createRelease(payload(), version, new Date(Date.now() - 3_600_000))
  await createRelease(payload(), '3.0.0-beta.1', new Date(Date.now() - 1_800_000))
  for (let index = 0; index < 4; index += 1) early.push(await buyLicense(PRICES.standard))
  await createRelease(payload(), '3.0.0', new Date(Date.now() - 60_000))
}, 120_000)

const licenseOf = async (buyer: TestUser): Promise<License> => {
  const [license] = await rows(payload(), 'licenses', { user: { equals: buyer.user.id } })
  if (!license) throw new Error(`no license for ${buyer.email}`)
  return license
}

const buyLicense = async (priceId: string) => {
  const buyer = await createUser(payload(), 'customer')
  const { events } = await buy(priceId, { as: buyer })
  await standIn.settled()
  return { buyer, license: await licenseOf(buyer), events }
}

const planSlug = async (license: License) =>
  (await payload().findByID({ collection: 'plans', id: license.plan as number, depth: 0 })).slug

const changesOf = (license: License) => rows(payload(), 'license_changes', { license: { equals: license.id } })

/** The payment intent a paid checkout session made. */
const paymentIntentOf = async (sessionId: string) => {
  const session = await processor().checkout.sessions.retrieve(sessionId)
  return session.payment_intent as string
}

describe('update windows', () => {
  it('records the plan policy at grant: Standard up to the newest stable major then, Ultimate every release', async () => {
    expect(early[0]!.license).toMatchObject({ updatePolicy: 'major', updatesMajor: 2, updatesUntil: null })
    // Bought after 3.0.0 (a pre-release of a next major would not count): up to 3.x.
    const { license: standard } = await buyLicense(PRICES.standard)
    expect(standard).toMatchObject({ updatePolicy: 'major', updatesMajor: 3, updatesUntil: null })
    const { license: ultimate } = await buyLicense(PRICES.ultimate)
    expect(ultimate).toMatchObject({ updatePolicy: 'lifetime', updatesMajor: null })
  })

  it('a Standard license downloads inside its window, and 403 updates_expired outside it naming the newest covered release', async () => {
    const { buyer } = early[0]!
    const newest = await api('GET', '/download', { as: buyer })
    expect(newest.status).toBe(200)
    expect(newest.body.version).toBe('2.1.0')
    expect((await api('GET', '/download?version=2.0.0', { as: buyer })).status).toBe(200)
    const locked = await api('GET', '/download?version=3.0.0', { as: buyer })
    expect(locked.status).toBe(403)
    expect(locked.body.errors[0].code).toBe('updates_expired')
    expect(locked.body.errors[0].message).toContain('2.1.0')
    expect(locked.body.errors[0].message).toMatch(/renew your updates or upgrade your plan/)
    // `latest` stays what it was for Standard: not included at all.
    expect((await api('GET', '/download?version=latest', { as: buyer })).body.errors[0].code).toBe(
      'version_not_allowed',
    )
  })

  it('an Ultimate license downloads every release, latest included', async () => {
    const { buyer } = await buyLicense(PRICES.ultimate)
    expect((await api('GET', '/download?version=3.0.0', { as: buyer })).status).toBe(200)
    expect((await api('GET', '/download', { as: buyer })).body.version).toBe('3.0.0')
  })

  it('validation stays VALID outside the window and reports it in the body and the certificate (upd)', async () => {
    const { license } = early[1]!
    const validated = await api('POST', '/licenses/validate', { body: { key: license.key } })
    expect(validated.status).toBe(200)
    expect(validated.body).toMatchObject({ valid: true, code: 'VALID', updates: { policy: 'major', major: 2 } })
    const keys = await api('GET', '/licenses/public-key')
    const { payload: claims } = await jwtVerify(validated.body.certificate, createLocalJWKSet(keys.body))
    expect(claims.upd).toEqual({ policy: 'major', major: 2 })
  })
})

describe('renewal', () => {
  it('a chargeback on the renewal payment suspends the license until it closes; lost takes the renewal back', async () => {
    const { buyer, license } = early[3]!
    const renewal = await api('POST', `/licenses/${license.id}/renewal`, { as: buyer })
    const events = await standIn.pay(renewal.body.id, { email: buyer.email })
    await standIn.settled()
    expect(await licenseOf(buyer)).toMatchObject({ status: 'active', updatesMajor: 3 })
    const charge = events.find((event) => event.type === 'charge.succeeded')!.data.object
    const [opened] = await standIn.openDispute(charge.id)
    await standIn.settled()
    expect(await licenseOf(buyer)).toMatchObject({ status: 'suspended', updatesMajor: 3 })
    expect((await api('GET', '/download?version=2.1.0', { as: buyer })).status).toBe(403)
    // The dispute's events again, in any order: still suspended, once.
    for (const event of standIn
      .events()
      .map((record) => record.event)
      .filter((event) => event.type === 'charge.dispute.created')) {
      await processEvent(payload(), processor(), { ...event, id: `${event.id}_again` }, settings)
    }
    expect((await licenseOf(buyer)).status).toBe('suspended')
    await standIn.closeDispute((opened!.data.object as Stripe.Dispute).id, 'lost')
    await standIn.settled()
    expect(await licenseOf(buyer)).toMatchObject({ status: 'active', updatesMajor: 2 })
    expect((await api('GET', '/download?version=2.1.0', { as: buyer })).status).toBe(200)
  })

  it('checks out the plan renewal price; payment moves the window to the newest major, same key, one payment, an email and an event', async () => {
    const { buyer, license } = early[2]!
    const renewal = await api('POST', `/licenses/${license.id}/renewal`, { as: buyer })
    expect(renewal.status).toBe(200)
    const session = await processor().checkout.sessions.retrieve(renewal.body.id, { expand: ['line_items'] })
    expect(session.line_items?.data[0]?.price?.id).toBe(PRICES.standardRenewal)
    expect(session.metadata).toMatchObject({ renewal_license_id: String(license.id), user_id: String(buyer.user.id) })
    const events = await standIn.pay(renewal.body.id, { email: buyer.email })
    await standIn.settled()

    const renewed = await licenseOf(buyer)
    expect(renewed).toMatchObject({ key: license.key, plan: license.plan, updatePolicy: 'major', updatesMajor: 3 })
    expect((await api('GET', '/download?version=3.0.0', { as: buyer })).status).toBe(200)
    const [change] = await changesOf(license)
    expect(change).toMatchObject({ kind: 'renewal', status: 'applied', amount: 4900 })
    const payments = await rows(payload(), 'payment_history', { user: { equals: buyer.user.id } })
    expect(payments.filter((payment) => payment.amount === 4900)).toHaveLength(1)
    expect(
      await rows(payload(), 'analytics_events', {
        name: { equals: 'license_renewed' },
        user: { equals: buyer.user.id },
      }),
    ).toHaveLength(1)
    await payload().jobs.run({ limit: 1000 })
    await smtp.waitFor(
      (message) =>
        JSON.stringify(message.to ?? '').includes(buyer.email) && /updates are renewed/.test(message.subject ?? ''),
    )

    // Delivered again (a retry of every event, in reverse order): nothing changes.
    for (const event of [...events].reverse())
      await processEvent(payload(), processor(), { ...event, id: `${event.id}_again` }, settings)
    expect(await changesOf(license)).toHaveLength(1)
    expect(
      (await rows(payload(), 'payment_history', { user: { equals: buyer.user.id } })).filter(
        (payment) => payment.amount === 4900,
      ),
    ).toHaveLength(1)
    expect(await licenseOf(buyer)).toMatchObject({ updatesMajor: 3 })

    // Now the window covers every release: nothing to renew.
    const again = await api('POST', `/licenses/${license.id}/renewal`, { as: buyer })
    expect(again.status).toBe(409)
    expect(again.body.errors[0].code).toBe('renewal_not_offered')
  })

  it('refuses a plan without renewals, another customer, and anonymous callers', async () => {
    const { buyer, license } = await buyLicense(PRICES.ultimate)
    expect((await api('POST', `/licenses/${license.id}/renewal`, { as: buyer })).body.errors[0].code).toBe(
      'renewal_not_offered',
    )
    const stranger = await createUser(payload(), 'customer')
    const other = await api('POST', `/licenses/${license.id}/renewal`, { as: stranger })
    expect(other.status).toBe(404)
    expect(other.body.errors[0].code).toBe('license_not_found')
    expect((await api('POST', `/licenses/${license.id}/renewal`)).status).toBe(401)
    expect((await api('POST', `/licenses/abc/renewal`, { as: buyer })).status).toBe(404)
    // A malformed Idempotency-Key is refused as on POST /api/checkout_sessions, before the processor is asked.
    const badKey = await api('POST', `/licenses/${license.id}/upgrade`, {
      as: buyer,
      body: { plan: 'ultimate' },
      headers: { 'idempotency-key': 'two words' },
    })
    expect(badKey.status).toBe(400)
    expect(badKey.body.errors[0].code).toBe('invalid_request')
  })
})

describe('upgrade, paying the difference', () => {
  it('quotes the target price less what was paid, and refuses what is not an upgrade', async () => {
    const { buyer, license } = await buyLicense(PRICES.standard)
    const quote = await api('GET', `/licenses/${license.id}/upgrade?plan=ultimate`, { as: buyer })
    expect(quote.status).toBe(200)
    expect(quote.body).toMatchObject({
      from: 'standard',
      to: 'ultimate',
      amount: 29900 - 14900,
      currency: 'usd',
      credit: 14900,
    })
    for (const plan of ['standard', 'free', 'pro', 'nope']) {
      const refused = await api('GET', `/licenses/${license.id}/upgrade?plan=${plan}`, { as: buyer })
      expect(refused.status, plan).toBe(409)
      expect(refused.body.errors[0].code).toBe('upgrade_not_offered')
    }
    const { buyer: top, license: ultimate } = await buyLicense(PRICES.ultimate)
    const downgrade = await api('POST', `/licenses/${ultimate.id}/upgrade`, { as: top, body: { plan: 'standard' } })
    expect(downgrade.status).toBe(409)
    expect(downgrade.body.errors[0].code).toBe('upgrade_not_offered')
    const stranger = await createUser(payload(), 'customer')
    expect((await api('GET', `/licenses/${license.id}/upgrade?plan=ultimate`, { as: stranger })).status).toBe(404)
    expect((await api('GET', `/licenses/${license.id}/upgrade?plan=Ultimate%27`, { as: buyer })).status).toBe(400)
  })

  it('pays the difference through a single-use coupon; the same license and key move to Ultimate with what it opens', async () => {
    const { buyer, license } = await buyLicense(PRICES.standard)
    const started = await api('POST', `/licenses/${license.id}/upgrade`, { as: buyer, body: { plan: 'ultimate' } })
    expect(started.status).toBe(200)
    const session = await processor().checkout.sessions.retrieve(started.body.id)
    expect(session.amount_total).toBe(15000)
    expect(session.metadata).toMatchObject({
      upgrade_license_id: String(license.id),
      plan_id: 'ultimate',
      price_id: PRICES.ultimate,
      upgrade_credit: '14900',
    })
    const coupon = await processor().coupons.retrieve(session.discounts![0]!.coupon as string)
    expect(coupon).toMatchObject({ amount_off: 14900, currency: 'usd', duration: 'once', max_redemptions: 1 })
    expect(coupon.redeem_by! - Math.floor(Date.now() / 1000)).toBeLessThanOrEqual(24 * 3600)

    await standIn.pay(started.body.id, { email: buyer.email })
    await standIn.settled()
    const upgraded = await licenseOf(buyer)
    expect(await planSlug(upgraded)).toBe('ultimate')
    expect(upgraded).toMatchObject({ id: license.id, key: license.key, status: 'active', updatePolicy: 'lifetime' })
    expect(upgraded.upgradedAt).toBeTruthy()
    expect(await rows(payload(), 'licenses', { user: { equals: buyer.user.id } })).toHaveLength(1)
    expect((await api('GET', '/download?version=3.0.0', { as: buyer })).status).toBe(200)
    expect((await api('GET', '/download?version=latest', { as: buyer })).status).toBe(200)
    codeHost.addUser(`upgraded-${buyer.user.id}`)
    const repo = await api('POST', '/repo-access', { as: buyer, body: { username: `upgraded-${buyer.user.id}` } })
    expect(repo.status, JSON.stringify(repo.body)).toBe(200)
    const [change] = await changesOf(license)
    expect(change).toMatchObject({ kind: 'upgrade', status: 'applied', amount: 15000, credit: 14900 })
    expect(
      await rows(payload(), 'audit_log', {
        action: { equals: 'license.upgrade' },
        targetId: { equals: String(license.id) },
      }),
    ).toHaveLength(1)
    expect(
      await rows(payload(), 'analytics_events', {
        name: { equals: 'license_upgraded' },
        user: { equals: buyer.user.id },
      }),
    ).toHaveLength(1)
    expect(
      (await rows(payload(), 'payment_history', { user: { equals: buyer.user.id } }))
        .map((payment) => payment.amount)
        .sort(),
    ).toEqual([14900, 15000])
    // The coupon was for this checkout only: it cannot be used again.
    const reused = await processor()
      .checkout.sessions.create({
        mode: 'payment',
        line_items: [{ price: PRICES.ultimate, quantity: 1 }],
        discounts: [{ coupon: coupon.id }],
        success_url: 'http://localhost/x',
      })
      .catch((error: Stripe.errors.StripeError) => error)
    expect(reused).toBeInstanceOf(Error)
    // And an upgrade again is no longer offered.
    expect((await api('GET', `/licenses/${license.id}/upgrade?plan=ultimate`, { as: buyer })).status).toBe(409)
  })

  /** With automatic tax on (PAYMENT_AUTOMATIC_TAX): buyers without an address are in Germany (19% VAT) at the stand-in. */
  const withAutomaticTax = async <T>(work: () => Promise<T>): Promise<T> => {
    const taxes = billingRuntimeOf(payload()).require().taxes
    taxes.automaticTax = true
    try {
      return await work()
    } finally {
      taxes.automaticTax = false
    }
  }

  it('with tax on the purchase, the credit is what was paid before tax: the seller does not give the VAT back', async () => {
    await withAutomaticTax(async () => {
      const { buyer, license } = await buyLicense(PRICES.standard)
      const [purchase] = await rows(payload(), 'one_time_purchases', { user: { equals: buyer.user.id } })
      // 149.00 + 28.31 VAT (19%).
      expect(purchase).toMatchObject({ amount: 17731, taxAmount: 2831 })
      const quote = await api('GET', `/licenses/${license.id}/upgrade?plan=ultimate`, { as: buyer })
      expect(quote.body).toMatchObject({ credit: 14900, amount: 15000, price: 29900 })
      // The upgrade's checkout adds the tax on what is left: 150.00 + 28.50.
      const started = await api('POST', `/licenses/${license.id}/upgrade`, { as: buyer, body: { plan: 'ultimate' } })
      expect(started.status).toBe(200)
      await standIn.pay(started.body.id, { email: buyer.email })
      await standIn.settled()
      expect(await planSlug(await licenseOf(buyer))).toBe('ultimate')
      expect((await changesOf(license))[0]).toMatchObject({
        status: 'applied',
        amount: 17850,
        taxAmount: 2850,
        credit: 14900,
      })
    })
  })

  it('a partial refund of a taxed purchase takes its share of the tax: the credit is the rest before tax', async () => {
    await withAutomaticTax(async () => {
      const { buyer, license, events } = await buyLicense(PRICES.standard)
      const charge = events.find((event) => event.type === 'charge.succeeded')!.data.object
      await standIn.refund(charge.id, 5000)
      await standIn.settled()
      // (17731 - 5000) x 14900 / 17731, rounded down.
      expect((await api('GET', `/licenses/${license.id}/upgrade?plan=ultimate`, { as: buyer })).body).toMatchObject({
        credit: 10698,
        amount: 29900 - 10698,
      })
    })
  })

  it("before the checkout's own event says the tax, the purchase is not quoted; once it arrives, the credit is before tax", async () => {
    await withAutomaticTax(async () => {
      const buyer = await createUser(payload(), 'customer')
      const { sessionId } = await quietly(() => buy(PRICES.standard, { as: buyer }))
      const made = standIn
        .events()
        .map((record) => record.event)
        .filter(
          (event) =>
            JSON.stringify(event.data.object).includes(sessionId) ||
            event.type.startsWith('payment_intent') ||
            event.type.startsWith('charge'),
        )
      const completed = made.find(
        (event) => event.type === 'checkout.session.completed' && event.data.object.id === sessionId,
      )!
      const paymentIntent = (completed.data.object as Stripe.Checkout.Session).payment_intent as string
      const succeeded = made.find(
        (event) => event.type === 'payment_intent.succeeded' && event.data.object.id === paymentIntent,
      )!
      // The payment intent's event first: the license is granted, its tax not known yet.
      expect((await standIn.redeliver(succeeded.id)).status).toBe(200)
      const license = await licenseOf(buyer)
      expect((await rows(payload(), 'one_time_purchases', { user: { equals: buyer.user.id } }))[0]).toMatchObject({
        amount: 17731,
        taxAmount: null,
      })
      const early = await api('GET', `/licenses/${license.id}/upgrade?plan=ultimate`, { as: buyer })
      expect(early.status).toBe(409)
      expect(early.body.errors[0]).toMatchObject({
        code: 'upgrade_not_offered',
        message: expect.stringMatching(/still being recorded/),
      })
      expect((await standIn.redeliver(completed.id)).status).toBe(200)
      expect((await api('GET', `/licenses/${license.id}/upgrade?plan=ultimate`, { as: buyer })).body).toMatchObject({
        credit: 14900,
        amount: 15000,
      })
    })
  })

  it('two upgrade checkouts paid at once: the second is refunded in full and changes nothing else', async () => {
    const { buyer, license } = await buyLicense(PRICES.standard)
    const first = await api('POST', `/licenses/${license.id}/upgrade`, {
      as: buyer,
      body: { plan: 'ultimate' },
      headers: { 'idempotency-key': 'tab-1' },
    })
    const second = await api('POST', `/licenses/${license.id}/upgrade`, {
      as: buyer,
      body: { plan: 'ultimate' },
      headers: { 'idempotency-key': 'tab-2' },
    })
    expect(first.body.id).not.toBe(second.body.id)
    // A double click (the same key again) is the same checkout, coupon included.
    const clickedAgain = await api('POST', `/licenses/${license.id}/upgrade`, {
      as: buyer,
      body: { plan: 'ultimate' },
      headers: { 'idempotency-key': 'tab-1' },
    })
    expect(clickedAgain.body.id).toBe(first.body.id)
    await Promise.all([
      standIn.pay(first.body.id, { email: buyer.email }),
      standIn.pay(second.body.id, { email: buyer.email }),
    ])
    await standIn.settled()
    const changes = await changesOf(license)
    expect(changes.map((change) => change.status).sort()).toEqual(['applied', 'refused'])
    const refused = changes.find((change) => change.status === 'refused')!
    expect(refused.reason).toBe('already_upgraded')
    const ran = await payload().jobs.run({ limit: 1000 })
    await standIn.settled()
    const refunded = (await changesOf(license)).find((change) => change.id === refused.id)!
    // Should this fail, the message says where the refund's job is (completed jobs leave the queue).
    const queuedRefunds = async () =>
      (
        await payload().find({
          collection: 'payload-jobs',
          where: { taskSlug: { equals: 'refundLicenseChange' } },
          limit: 1000,
          depth: 0,
        })
      ).docs
    const refundJobs = (await queuedRefunds()).map(
      ({ input, processing, hasError, completedAt, waitUntil, totalTried, log }) => ({
        input,
        processing,
        hasError,
        completedAt,
        waitUntil,
        totalTried,
        log,
      }),
    )
    expect(refunded.refundRequestedAt, JSON.stringify({ ran, refunded, refundJobs })).toBeTruthy()
    expect(refunded.refundedAmount).toBe(refunded.amount)
    expect(refunded.refundRequestedAt).toBeTruthy()
    const intent = await processor().paymentIntents.retrieve(refused.processorPaymentIntentId!, {
      expand: ['latest_charge'],
    })
    expect((intent.latest_charge as Stripe.Charge).refunded).toBe(true)
    // The refund of the refused one did not reverse the applied one.
    expect(await planSlug(await licenseOf(buyer))).toBe('ultimate')
    // A retried refund job does not refund twice (the processor's own refusal is taken as done).
    await payload().jobs.queue({ task: 'refundLicenseChange', input: { changeId: refused.id } })
    await payload().jobs.run({ limit: 1000 })
    const jobs = (await queuedRefunds()).filter((job) => (job.input as { changeId?: number }).changeId === refused.id)
    // Completed jobs leave the queue; a failed one would stay, to be retried.
    expect(jobs).toEqual([])
    const charge = (
      await processor().paymentIntents.retrieve(refused.processorPaymentIntentId!, { expand: ['latest_charge'] })
    ).latest_charge as Stripe.Charge
    expect(charge.amount_refunded).toBe(refused.amount)
  })

  it('a full refund of the upgrade payment returns the license to Standard and its window; of the purchase, revokes it', async () => {
    const { buyer, license } = await buyLicense(PRICES.standard)
    const started = await api('POST', `/licenses/${license.id}/upgrade`, { as: buyer, body: { plan: 'ultimate' } })
    await standIn.pay(started.body.id, { email: buyer.email })
    await standIn.settled()
    expect(await planSlug(await licenseOf(buyer))).toBe('ultimate')
    await standIn.refund(await paymentIntentOf(started.body.id))
    await standIn.settled()
    const back = await licenseOf(buyer)
    expect(await planSlug(back)).toBe('standard')
    expect(back).toMatchObject({
      key: license.key,
      status: 'active',
      updatePolicy: 'major',
      updatesMajor: license.updatesMajor,
      upgradedAt: null,
    })
    expect((await changesOf(license))[0]).toMatchObject({ status: 'reversed' })
    // Repository access it opened is withdrawn by the queue (the plan changed).
    const jobs = await payload().find({
      collection: 'payload-jobs',
      where: { taskSlug: { equals: 'withdrawRepoAccess' }, 'input.userId': { equals: buyer.user.id } },
      depth: 0,
    })
    expect(jobs.totalDocs).toBeGreaterThan(0)
    // The quote after the reversal counts the refunded upgrade as nothing paid.
    expect((await api('GET', `/licenses/${license.id}/upgrade?plan=ultimate`, { as: buyer })).body.amount).toBe(15000)
  })

  /** A Standard license upgraded to Ultimate, then a chargeback opened on the upgrade's payment. */
  const upgradeThenDispute = async () => {
    const { buyer, license } = await buyLicense(PRICES.standard)
    const started = await api('POST', `/licenses/${license.id}/upgrade`, { as: buyer, body: { plan: 'ultimate' } })
    const events = await standIn.pay(started.body.id, { email: buyer.email })
    await standIn.settled()
    const charge = events.find((event) => event.type === 'charge.succeeded')!.data.object
    const [opened] = await standIn.openDispute(charge.id)
    await standIn.settled()
    return { buyer, license, disputeId: (opened!.data.object as Stripe.Dispute).id }
  }

  it('a chargeback on the upgrade payment suspends the license while open; lost returns it, active, to its previous plan', async () => {
    const { buyer, license, disputeId } = await upgradeThenDispute()
    // Open: suspended as a dispute on the purchase would (no downloads, validation SUSPENDED), still Ultimate.
    expect(await licenseOf(buyer)).toMatchObject({ status: 'suspended' })
    expect(await planSlug(await licenseOf(buyer))).toBe('ultimate')
    expect((await api('POST', '/licenses/validate', { body: { key: license.key } })).body).toMatchObject({
      valid: false,
      code: 'SUSPENDED',
    })
    expect((await api('GET', '/download', { as: buyer })).status).toBe(403)
    await standIn.closeDispute(disputeId, 'lost')
    await standIn.settled()
    expect(await planSlug(await licenseOf(buyer))).toBe('standard')
    expect((await licenseOf(buyer)).status).toBe('active')
    expect((await api('POST', '/licenses/validate', { body: { key: license.key } })).body).toMatchObject({
      valid: true,
      plan: 'standard',
    })
  })

  it('a chargeback on the upgrade payment won: the license is active on Ultimate again', async () => {
    const { buyer, license, disputeId } = await upgradeThenDispute()
    expect((await licenseOf(buyer)).status).toBe('suspended')
    await standIn.closeDispute(disputeId, 'won')
    await standIn.settled()
    expect(await licenseOf(buyer)).toMatchObject({ status: 'active', key: license.key })
    expect(await planSlug(await licenseOf(buyer))).toBe('ultimate')
    expect((await changesOf(license))[0]).toMatchObject({ status: 'applied', disputeStatus: 'won' })
  })

  it('a checkout made before a refund of the purchase cannot spend the credit after it', async () => {
    const { buyer, license, events } = await buyLicense(PRICES.standard)
    const started = await api('POST', `/licenses/${license.id}/upgrade`, { as: buyer, body: { plan: 'ultimate' } })
    const charge = events.find((event) => event.type === 'charge.succeeded')!.data.object
    await standIn.refund(charge.id, 5000)
    await standIn.settled()
    // The quote follows the refund at once.
    expect((await api('GET', `/licenses/${license.id}/upgrade?plan=ultimate`, { as: buyer })).body).toMatchObject({
      credit: 9900,
      amount: 20000,
    })
    await standIn.pay(started.body.id, { email: buyer.email })
    await standIn.settled()
    expect(await planSlug(await licenseOf(buyer))).toBe('standard')
    const [change] = await changesOf(license)
    expect(change).toMatchObject({ status: 'refused', reason: 'credit_changed' })
    await payload().jobs.run({ limit: 1000 })
    await standIn.settled()
    expect((await changesOf(license))[0]!.refundedAmount).toBe(15000)
  })

  it('a forged upgrade_license_id (another customer’s license) is refused and refunded; the victim’s license is untouched', async () => {
    const { buyer: victim, license } = await buyLicense(PRICES.standard)
    const attacker = await createUser(payload(), 'customer')
    const metadata = {
      plan_id: 'ultimate',
      price_id: PRICES.ultimate,
      billing_cycle: 'lifetime',
      user_id: String(attacker.user.id),
      upgrade_license_id: String(license.id),
      upgrade_from_plan: 'standard',
      upgrade_credit: '0',
    }
    const session = await processor().checkout.sessions.create({
      mode: 'payment',
      line_items: [{ price: PRICES.ultimate, quantity: 1 }],
      metadata,
      payment_intent_data: { metadata },
      customer_email: attacker.email,
      success_url: 'http://localhost:3000/dashboard',
    })
    await standIn.pay(session.id, { email: attacker.email })
    await standIn.settled()
    expect(await planSlug(await licenseOf(victim))).toBe('standard')
    const [change] = await rows(payload(), 'license_changes', { processorCheckoutSessionId: { equals: session.id } })
    expect(change).toMatchObject({ status: 'refused', reason: 'not_the_owner', license: null })
    await payload().jobs.run({ limit: 1000 })
    await standIn.settled()
    const intent = await processor().paymentIntents.retrieve(change!.processorPaymentIntentId!, {
      expand: ['latest_charge'],
    })
    expect((intent.latest_charge as Stripe.Charge).refunded).toBe(true)
  })

  it('events in any order and late events of the original purchase never undo the upgrade', async () => {
    const { buyer, license, events: purchaseEvents } = await buyLicense(PRICES.standard)
    const started = await api('POST', `/licenses/${license.id}/upgrade`, { as: buyer, body: { plan: 'ultimate' } })
    const events = await quietly(() => standIn.pay(started.body.id, { email: buyer.email }))
    // The upgrade's events, newest first, each twice, with the purchase's own events redelivered between.
    for (const event of [...events].reverse()) {
      expect(await processEvent(payload(), processor(), event, settings)).not.toBe('failed')
      for (const old of purchaseEvents)
        await processEvent(payload(), processor(), { ...old, id: `${old.id}_${event.id}` }, settings)
      await processEvent(payload(), processor(), event, settings)
    }
    const upgraded = await licenseOf(buyer)
    expect(await planSlug(upgraded)).toBe('ultimate')
    expect(upgraded.key).toBe(license.key)
    const changes = await changesOf(license)
    expect(changes).toHaveLength(1)
    expect(changes[0]).toMatchObject({ status: 'applied' })
    expect(
      (await rows(payload(), 'payment_history', { user: { equals: buyer.user.id } }))
        .map((payment) => payment.amount)
        .sort(),
    ).toEqual([14900, 15000])
    expect(
      await rows(payload(), 'analytics_events', {
        name: { equals: 'license_upgraded' },
        user: { equals: buyer.user.id },
      }),
    ).toHaveLength(1)
  })

  it('the certificate of an upgraded license carries its new plan and window', async () => {
    const { buyer, license } = await buyLicense(PRICES.standard)
    const started = await api('POST', `/licenses/${license.id}/upgrade`, { as: buyer, body: { plan: 'ultimate' } })
    await standIn.pay(started.body.id, { email: buyer.email })
    await standIn.settled()
    const validated = await api('POST', '/licenses/validate', { body: { key: license.key } })
    expect(validated.body).toMatchObject({ code: 'VALID', plan: 'ultimate', updates: { policy: 'lifetime' } })
    expect(decodeJwt(validated.body.certificate)).toMatchObject({ plan: 'ultimate', upd: { policy: 'lifetime' } })
  })
})

describe('upgrade edges', () => {
  it('a purchase refunded in full (license revoked) is not upgraded by a checkout made before the refund', async () => {
    const { buyer, license, events } = await buyLicense(PRICES.standard)
    const started = await api('POST', `/licenses/${license.id}/upgrade`, { as: buyer, body: { plan: 'ultimate' } })
    const charge = events.find((event) => event.type === 'charge.succeeded')!.data.object
    await standIn.refund(charge.id)
    await standIn.settled()
    expect((await licenseOf(buyer)).status).toBe('revoked')
    expect((await api('GET', `/licenses/${license.id}/upgrade?plan=ultimate`, { as: buyer })).body.errors[0].code).toBe(
      'upgrade_not_offered',
    )
    await standIn.pay(started.body.id, { email: buyer.email })
    await standIn.settled()
    expect((await changesOf(license))[0]).toMatchObject({ status: 'refused', reason: 'license_not_active' })
    expect(await licenseOf(buyer)).toMatchObject({ status: 'revoked' })
    expect(await planSlug(await licenseOf(buyer))).toBe('standard')
  })

  it('a credit that covers the whole price upgrades at once, with no checkout', async () => {
    const ultimate = (await payload().find({ collection: 'plans', where: { slug: { equals: 'ultimate' } }, depth: 0 }))
      .docs[0]!
    const cheap = await processor().prices.create({
      unit_amount: 14900,
      currency: 'usd',
      product_data: { name: 'Ultimate at the Standard price' },
    })
    await payload().update({ collection: 'plans', id: ultimate.id, data: { priceIds: { monthly: cheap.id } } })
    try {
      const { buyer, license } = await buyLicense(PRICES.standard)
      expect((await api('GET', `/licenses/${license.id}/upgrade?plan=ultimate`, { as: buyer })).body).toMatchObject({
        amount: 0,
        credit: 14900,
      })
      const upgraded = await api('POST', `/licenses/${license.id}/upgrade`, { as: buyer, body: { plan: 'ultimate' } })
      expect(upgraded.status).toBe(200)
      expect(upgraded.body).toEqual({ upgraded: true })
      expect(await planSlug(await licenseOf(buyer))).toBe('ultimate')
      expect(await changesOf(license)).toEqual([
        expect.objectContaining({ kind: 'upgrade', status: 'applied', amount: 0, credit: 14900 }),
      ])
      // Asked again: not an upgrade any more, and nothing changes.
      expect(
        (await api('POST', `/licenses/${license.id}/upgrade`, { as: buyer, body: { plan: 'ultimate' } })).status,
      ).toBe(409)
      expect(await changesOf(license)).toHaveLength(1)
    } finally {
      await payload().update({ collection: 'plans', id: ultimate.id, data: { priceIds: { monthly: PRICES.ultimate } } })
    }
  })
})

describe('who reads and writes upgrades and renewals', () => {
  it('a customer reads only their own rows (REST, where and GraphQL) and writes none', async () => {
    const { buyer, license } = await buyLicense(PRICES.standard)
    const started = await api('POST', `/licenses/${license.id}/upgrade`, { as: buyer, body: { plan: 'ultimate' } })
    await standIn.pay(started.body.id, { email: buyer.email })
    await standIn.settled()
    const own = await api('GET', '/license_changes', { as: buyer })
    expect(own.status).toBe(200)
    expect(own.body.docs.length).toBeGreaterThan(0)
    expect(
      own.body.docs.every(
        (row: { user: number | { id: number } }) =>
          (typeof row.user === 'object' ? row.user.id : row.user) === buyer.user.id,
      ),
    ).toBe(true)
    const stranger = await createUser(payload(), 'customer')
    expect(
      (await api('GET', `/license_changes?where[license][equals]=${license.id}`, { as: stranger })).body.totalDocs,
    ).toBe(0)
    const graph = await graphql('{ LicenseChanges { docs { id } } }', stranger)
    expect(graph.errors).toBeUndefined()
    expect(graph.data?.LicenseChanges?.docs).toEqual([])
    expect(
      (await graphql('{ LicenseChanges { docs { id } } }', buyer)).data?.LicenseChanges?.docs.length,
    ).toBeGreaterThan(0)
    const created = await api('POST', '/license_changes', {
      as: buyer,
      body: { kind: 'upgrade', status: 'applied', license: license.id },
    })
    expect(created.status).toBe(403)
    const changed = await api('PATCH', `/license_changes/${own.body.docs[0].id}`, {
      as: buyer,
      body: { status: 'reversed' },
    })
    expect(changed.status).toBe(403)
  })
})

describe('with the service over HTTP', () => {
  it('the endpoints answer through the real route (a 401 in the error shape)', async () => {
    const response = await fetch(`${service.url}/api/licenses/1/upgrade?plan=ultimate`)
    expect(response.status).toBe(401)
    expect((await response.json()).errors[0].code).toBe('unauthenticated')
  })
})

import http from 'node:http'
import type { AddressInfo } from 'node:net'

import Stripe from 'stripe'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'

import { startProcessorStandIn, type ProcessorStandIn } from '../src/processor'
import { idIn, sdkFor, standInCatalogue } from './sdk'

/**
 * Checkout's abandoned-cart recovery through the real SDK: `expires_at`, `after_expiration`,
 * `consent_collection`, expiring (by the API, the control and the clock), what the buyer typed, and the
 * recovery URL's copies. A stand-in of its own, so its webhooks stay out of the other files' lists.
 */

const SECRET_KEY = 'sk_test_standin_recovery_0123456789'
const WEBHOOK_SECRET = 'whsec_standin_recovery_0123456789'
/** $149.00 one-time, usd. */
const LIFETIME = 'price_standin_standard_lifetime'
/** $299.00 one-time, usd. */
const ULTIMATE = 'price_standin_ultimate_lifetime'
const MONTHLY = 'price_standin_pro_monthly'
const SUCCESS_URL = 'https://app.example/thanks?session_id={CHECKOUT_SESSION_ID}'
const CANCEL_URL = 'https://app.example/pricing'
const HOUR = 60 * 60
const DAY = 24 * HOUR

/** The webhook endpoint, reduced to the events whose signature verified. */
const startReceiver = async () => {
  const verifier = new Stripe(SECRET_KEY)
  const received: Stripe.Event[] = []
  const rejected: string[] = []
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      try {
        const signature = String(req.headers['stripe-signature'])
        received.push(verifier.webhooks.constructEvent(Buffer.concat(chunks), signature, WEBHOOK_SECRET))
      } catch (error) {
        rejected.push(error instanceof Error ? error.message : String(error))
      }
      res.end('{}')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhook`,
    received,
    rejected,
    /** The events about one object, in the order they arrived. */
    about: (id: string) => received.filter((event) => (event.data.object as { id?: string }).id === id),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

let standIn: ProcessorStandIn
let stripe: Stripe
let receiver: Awaited<ReturnType<typeof startReceiver>>

beforeAll(async () => {
  receiver = await startReceiver()
  standIn = await startProcessorStandIn({
    secretKey: SECRET_KEY,
    webhookSecret: WEBHOOK_SECRET,
    webhookUrl: receiver.url,
    prices: standInCatalogue('price_recovery_euro'),
  })
  stripe = sdkFor(standIn, SECRET_KEY)
})

afterAll(async () => {
  await standIn.close()
  await receiver.close()
})

beforeEach(() => {
  receiver.received.length = 0
  receiver.rejected.length = 0
})

const nowSeconds = () => Math.floor(Date.now() / 1000)
const types = (events: Stripe.Event[]) => events.map((event) => event.type)
const objectOf = <T>(events: Stripe.Event[], type: string): T => {
  const found = events.find((event) => event.type === type)
  if (!found) throw new Error(`no ${type} among ${types(events).join(', ')}`)
  return found.data.object as T
}
/** What a control threw (they refuse synchronously where nothing is delivered). */
const thrown = (act: () => unknown): unknown => {
  try {
    act()
  } catch (error) {
    return error
  }
  throw new Error('expected a refusal')
}
const caught = async (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => {
      throw new Error('expected a refusal')
    },
    (error: unknown) => error,
  )

/** The settings the service sends for an abandoned-cart flow. */
const RECOVERABLE = {
  after_expiration: { recovery: { enabled: true, allow_promotion_codes: true } },
  consent_collection: { promotions: 'auto' },
} satisfies Partial<Stripe.Checkout.SessionCreateParams>

const session = (fields: Partial<Stripe.Checkout.SessionCreateParams> = {}, options?: Stripe.RequestOptions) =>
  stripe.checkout.sessions.create(
    {
      mode: 'payment',
      line_items: [{ price: LIFETIME, quantity: 1 }],
      success_url: SUCCESS_URL,
      cancel_url: CANCEL_URL,
      ...fields,
    },
    options,
  )

const recoverable = (fields: Partial<Stripe.Checkout.SessionCreateParams> = {}, options?: Stripe.RequestOptions) =>
  session({ ...RECOVERABLE, ...fields }, options)

/** Expires the session through the API and returns the `checkout.session.expired` its webhook carried. */
const expiredThroughApi = async (id: string) => {
  const answer = await stripe.checkout.sessions.expire(id)
  await standIn.settled()
  const [event, ...others] = receiver.about(id).filter((entry) => entry.type === 'checkout.session.expired')
  expect(others).toEqual([])
  if (!event) throw new Error(`no checkout.session.expired for ${id}`)
  return { answer, event, expired: event.data.object }
}

const recoveryUrlOf = (expired: Stripe.Checkout.Session): string => {
  const url = expired.after_expiration?.recovery?.url
  if (!url) throw new Error(`session ${expired.id} has no recovery URL`)
  return url
}

const open = (url: string) => fetch(url, { redirect: 'manual' })

/** Opens the recovery URL and returns the session it redirected to. */
const recover = async (url: string) => {
  const answer = await open(url)
  expect(answer.status).toBe(303)
  const location = answer.headers.get('location') ?? ''
  expect(location).toMatch(new RegExp(`^${standIn.url}/checkout/cs_test_[A-Za-z0-9]{24}$`))
  return stripe.checkout.sessions.retrieve(location.slice(location.lastIndexOf('/') + 1))
}

describe('creating sessions', () => {
  it('echoes expires_at, after_expiration, consent_collection, consent and recovered_from, as retrieve does', async () => {
    const expiresAt = nowSeconds() + 2 * HOUR
    const created = await recoverable({ expires_at: expiresAt })
    const expected = {
      status: 'open',
      expires_at: expiresAt,
      after_expiration: { recovery: { allow_promotion_codes: true, enabled: true, expires_at: null, url: null } },
      consent_collection: { payment_method_reuse_agreement: null, promotions: 'auto', terms_of_service: 'none' },
      consent: null,
      recovered_from: null,
    }
    expect(created).toMatchObject(expected)
    expect(await stripe.checkout.sessions.retrieve(created.id)).toMatchObject(expected)

    // Without them: 24 hours to pay, as with Stripe, and nothing set.
    const plain = await session()
    expect(plain).toMatchObject({
      after_expiration: null,
      consent_collection: null,
      consent: null,
      recovered_from: null,
    })
    expect(plain.expires_at).toBe(plain.created + DAY)

    const others = await session({
      expires_at: nowSeconds() + DAY,
      after_expiration: { recovery: { enabled: false } },
      consent_collection: { promotions: 'none', payment_method_reuse_agreement: { position: 'hidden' } },
    })
    expect(others).toMatchObject({
      after_expiration: { recovery: { allow_promotion_codes: false, enabled: false, expires_at: null, url: null } },
      consent_collection: {
        payment_method_reuse_agreement: { position: 'hidden' },
        promotions: 'none',
        terms_of_service: 'none',
      },
    })
  })

  it('refuses expires_at less than 30 minutes or more than 24 hours after creation, with Stripe messages', async () => {
    const refused = (expiresAt: number) => caught(session({ expires_at: expiresAt }))
    const invalid = (message: string) => ({
      type: 'StripeInvalidRequestError',
      rawType: 'invalid_request_error',
      statusCode: 400,
      param: 'expires_at',
      message,
    })
    expect(await refused(nowSeconds() + 10 * 60)).toMatchObject(
      invalid('The `expires_at` timestamp must be at least 30 minutes from Checkout Session creation.'),
    )
    expect(await refused(nowSeconds() - 60)).toMatchObject({ param: 'expires_at', statusCode: 400 })
    expect(await refused(nowSeconds() + DAY + HOUR)).toMatchObject(
      invalid('The `expires_at` timestamp must be less than 24 hours from Checkout Session creation.'),
    )
    await expect(session({ expires_at: nowSeconds() + 31 * 60 })).resolves.toMatchObject({ status: 'open' })
  })

  it('refuses unknown consent_collection values, terms of service without a URL and recovery without enabled', async () => {
    // Values outside the SDK's types, as a caller without them (or a typo) sends them.
    const refused = (fields: Record<string, unknown>) => caught(session(fields))
    expect(await refused({ consent_collection: { promotions: 'always' } })).toMatchObject({
      type: 'StripeInvalidRequestError',
      statusCode: 400,
      param: 'consent_collection[promotions]',
      message: 'Invalid consent_collection[promotions]: must be one of auto or none',
    })
    expect(await refused({ consent_collection: { terms_of_service: 'maybe' } })).toMatchObject({
      statusCode: 400,
      param: 'consent_collection[terms_of_service]',
      message: 'Invalid consent_collection[terms_of_service]: must be one of none or required',
    })
    expect(await refused({ consent_collection: { promotions: 'auto', terms_of_service: 'required' } })).toMatchObject({
      type: 'StripeInvalidRequestError',
      statusCode: 400,
      param: 'consent_collection[terms_of_service]',
      message: expect.stringMatching(
        /^You cannot collect consent to your terms of service unless a URL is set in the Stripe Dashboard\. .*https:\/\/dashboard\.stripe\.com\/settings\/public/,
      ),
    })
    expect(await refused({ after_expiration: { recovery: { allow_promotion_codes: true } } })).toMatchObject({
      statusCode: 400,
      code: 'parameter_missing',
      param: 'after_expiration[recovery][enabled]',
    })
    expect(await refused({ after_expiration: { recovery: { enabled: true, url: 'x' } } })).toMatchObject({
      statusCode: 400,
      param: 'after_expiration[recovery][url]',
      message: 'Received unknown parameter: after_expiration[recovery][url]',
    })
  })

  it('replays a create under its idempotency key, and refuses the key with another expires_at', async () => {
    const expiresAt = nowSeconds() + 3 * HOUR
    const first = await recoverable({ expires_at: expiresAt }, { idempotencyKey: 'recovery-create-1' })
    const again = await recoverable({ expires_at: expiresAt }, { idempotencyKey: 'recovery-create-1' })
    expect(again.id).toBe(first.id)
    expect(again.lastResponse.headers['idempotent-replayed']).toBe('true')
    expect(again).toMatchObject({ expires_at: expiresAt, after_expiration: first.after_expiration })
    const other = recoverable({ expires_at: expiresAt + 60 }, { idempotencyKey: 'recovery-create-1' })
    await expect(other).rejects.toBeInstanceOf(Stripe.errors.StripeIdempotencyError)
  })
})

describe('expiring sessions', () => {
  it('expires an open session through the API, with its recovery URL, and delivers checkout.session.expired signed', async () => {
    const created = await recoverable({ customer_email: 'buyer@example.com', metadata: { userId: '42' } })
    const before = nowSeconds()
    const { answer, event, expired } = await expiredThroughApi(created.id)

    expect(answer).toMatchObject({ id: created.id, object: 'checkout.session', status: 'expired', url: null })
    expect(receiver.rejected).toEqual([])
    expect(event).toMatchObject({ type: 'checkout.session.expired', request: { id: answer.lastResponse.requestId } })
    expect(expired).toMatchObject({
      id: created.id,
      status: 'expired',
      created: created.created,
      metadata: { userId: '42' },
      customer_email: 'buyer@example.com',
      customer_details: null,
      consent: null,
    })
    const recovery = expired.after_expiration?.recovery
    expect(recovery).toMatchObject({ enabled: true, allow_promotion_codes: true })
    expect(recovery?.url).toMatch(new RegExp(`^${standIn.url}/r/test_[A-Za-z0-9]{24}$`))
    expect(recovery?.expires_at).toBeGreaterThanOrEqual(before + 30 * DAY)
    expect(recovery?.expires_at).toBeLessThanOrEqual(nowSeconds() + 30 * DAY)
    expect(await stripe.checkout.sessions.retrieve(created.id)).toMatchObject({
      status: 'expired',
      after_expiration: { recovery: { url: recovery?.url, expires_at: recovery?.expires_at } },
    })
    // Its hosted page takes nothing any more.
    expect(await (await fetch(`${standIn.url}/checkout/${created.id}`)).text()).toContain('is expired')
  })

  it('refuses to expire a session that is not open, and answers an unknown one 404', async () => {
    const created = await session()
    await stripe.checkout.sessions.expire(created.id)
    expect(await caught(stripe.checkout.sessions.expire(created.id))).toMatchObject({
      type: 'StripeInvalidRequestError',
      statusCode: 400,
      message:
        'Only Checkout Sessions with a status in ["open"] can be expired. This Checkout Session has a status of `expired`.',
    })
    const paid = await session()
    await standIn.pay(paid.id)
    expect(await caught(stripe.checkout.sessions.expire(paid.id))).toMatchObject({
      statusCode: 400,
      message: expect.stringMatching(/^Only Checkout Sessions with a status in \["open"\] can be expired\./),
    })
    expect(await caught(stripe.checkout.sessions.expire('cs_test_nope'))).toMatchObject({
      statusCode: 404,
      code: 'resource_missing',
      message: "No such checkout.session: 'cs_test_nope'",
    })
    await standIn.settled()
    expect(types(receiver.about(paid.id))).not.toContain('checkout.session.expired')
  })

  it('expires through the control, which resolves with the delivered event; no recovery, no URL', async () => {
    const created = await session({ customer_email: 'plain@example.com' })
    const sent = await standIn.expire(created.id)
    expect(types(sent)).toEqual(['checkout.session.expired'])
    expect(receiver.received.map((event) => event.id)).toEqual(sent.map((event) => event.id))
    expect(objectOf<Stripe.Checkout.Session>(sent, 'checkout.session.expired')).toMatchObject({
      status: 'expired',
      after_expiration: null,
      consent: null,
      customer_details: null,
    })
    await expect(standIn.expire(created.id)).rejects.toMatchObject({ status: 400 })
    expect(() => standIn.expireRecovery(created.id)).toThrow(/has no recovery URL/)
  })

  it('expires a session by itself once its expires_at has passed, by the stand-in clock', async () => {
    const created = await recoverable({ expires_at: nowSeconds() + 31 * 60 })
    const later = await recoverable()
    vi.useFakeTimers({ toFake: ['Date'] })
    try {
      vi.setSystemTime(Date.now() + 32 * 60 * 1000)
      for (let wait = 0; wait < 60 && receiver.about(created.id).length === 0; wait += 1) {
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      await standIn.settled()
      const [event] = receiver.about(created.id)
      expect(event?.type).toBe('checkout.session.expired')
      expect(event?.data.object).toMatchObject({ status: 'expired', after_expiration: { recovery: { enabled: true } } })
      expect(receiver.rejected).toEqual([])
      // The one with 24 hours left stays open.
      expect((await stripe.checkout.sessions.retrieve(later.id)).status).toBe('open')
    } finally {
      vi.useRealTimers()
    }
  })
})

describe('what the buyer typed', () => {
  afterEach(() => vi.useRealTimers())

  it('shares the typed email of an expired session only with consent to promotional emails', async () => {
    const optIn = await recoverable()
    standIn.fillIn(optIn.id, { email: 'typed@example.com', promotions: 'opt_in' })
    // Nothing shows before the session ends.
    expect(await stripe.checkout.sessions.retrieve(optIn.id)).toMatchObject({ consent: null, customer_details: null })
    expect(receiver.about(optIn.id)).toEqual([])
    const { expired } = await expiredThroughApi(optIn.id)
    expect(expired).toMatchObject({
      consent: { promotions: 'opt_in', terms_of_service: null },
      customer_details: { email: 'typed@example.com' },
    })

    const optOut = await recoverable()
    standIn.fillIn(optOut.id, { email: 'quiet@example.com' })
    standIn.fillIn(optOut.id, { promotions: 'opt_out' })
    expect((await expiredThroughApi(optOut.id)).expired).toMatchObject({
      consent: { promotions: 'opt_out', terms_of_service: null },
      customer_details: null,
    })

    const untouched = await recoverable()
    expect((await expiredThroughApi(untouched.id)).expired).toMatchObject({ consent: null, customer_details: null })

    // Consent to the email prefilled from customer_email shares that one.
    const prefilled = await recoverable({ customer_email: 'known@example.com' })
    standIn.fillIn(prefilled.id, { promotions: 'opt_in' })
    expect((await expiredThroughApi(prefilled.id)).expired).toMatchObject({
      customer_email: 'known@example.com',
      customer_details: { email: 'known@example.com' },
    })
  })

  it('refuses a consent answer where the page has no checkbox, a malformed email and a session not open', async () => {
    const plain = await session()
    expect(thrown(() => standIn.fillIn(plain.id, { promotions: 'opt_in' }))).toMatchObject({
      status: 400,
      message: expect.stringContaining('consent_collection[promotions]'),
    })
    await expect(standIn.pay(plain.id, { promotions: 'opt_in' })).rejects.toMatchObject({ status: 400 })
    expect(() => standIn.fillIn(plain.id, { email: 'not an email' })).toThrow(/Invalid email address/)
    standIn.fillIn(plain.id, { email: 'fine@example.com' })
    await standIn.expire(plain.id)
    expect(thrown(() => standIn.fillIn(plain.id, { email: 'late@example.com' }))).toMatchObject({ status: 409 })
  })

  it('sets consent on payment: ticked is opt_in, unticked opt_out, and none where there is no checkbox', async () => {
    const ticked = await recoverable()
    const paid = objectOf<Stripe.Checkout.Session>(
      await standIn.pay(ticked.id, { promotions: 'opt_in' }),
      'checkout.session.completed',
    )
    expect(paid).toMatchObject({ consent: { promotions: 'opt_in', terms_of_service: null } })

    const saved = await recoverable()
    standIn.fillIn(saved.id, { email: 'saved@example.com', promotions: 'opt_in' })
    expect(objectOf(await standIn.pay(saved.id), 'checkout.session.completed')).toMatchObject({
      consent: { promotions: 'opt_in' },
      customer_details: { email: 'saved@example.com' },
    })

    const unticked = await recoverable()
    expect(objectOf(await standIn.pay(unticked.id), 'checkout.session.completed')).toMatchObject({
      consent: { promotions: 'opt_out', terms_of_service: null },
    })
    const plain = await session()
    expect(objectOf(await standIn.pay(plain.id), 'checkout.session.completed')).toMatchObject({ consent: null })
  })

  it('shows the checkbox and "Save my details" on the hosted page, which saves without paying', async () => {
    const created = await recoverable({ customer_email: 'page@example.com' })
    const page = await (await fetch(created.url ?? '')).text()
    expect(page).toContain('value="page@example.com"')
    expect(page).toContain('Keep me updated with news and personalized offers')
    expect(page).toContain('<input type="checkbox" name="promotions" value="opt_in">')
    expect(page).toContain(`formaction="/checkout/${created.id}" formnovalidate>Save my details</button>`)
    const plainPage = await (await fetch((await session()).url ?? '')).text()
    expect(plainPage).not.toContain('Keep me updated')
    expect(plainPage).not.toContain('Save my details')

    const save = (fields: Record<string, string>) =>
      fetch(`${standIn.url}/checkout/${created.id}`, { method: 'POST', body: new URLSearchParams(fields) })
    const saved = await save({ email: 'typed@example.com', promotions: 'opt_in' })
    expect(saved.status).toBe(200)
    const again = await saved.text()
    expect(again).toContain('Your details were saved.')
    expect(again).toContain('value="typed@example.com"')
    expect(again).toContain('name="promotions" value="opt_in" checked>')
    expect((await save({ email: 'broken' })).status).toBe(400)
    await standIn.settled()
    expect(receiver.about(created.id)).toEqual([])
    expect((await stripe.checkout.sessions.retrieve(created.id)).status).toBe('open')

    const { expired } = await expiredThroughApi(created.id)
    expect(expired).toMatchObject({
      consent: { promotions: 'opt_in' },
      customer_details: { email: 'typed@example.com' },
    })
    expect((await save({ email: 'late@example.com' })).status).toBe(409)
  })

  it('pays from the hosted page with the box ticked, or not', async () => {
    for (const [fields, promotions] of [
      [{ promotions: 'opt_in' }, 'opt_in'],
      [{}, 'opt_out'],
    ] as const) {
      const created = await recoverable()
      const paid = await fetch(`${standIn.url}/checkout/${created.id}/pay`, {
        method: 'POST',
        body: new URLSearchParams({ email: 'pays@example.com', outcome: 'succeeded', ...fields }),
        redirect: 'manual',
      })
      expect(paid.status).toBe(303)
      await standIn.settled()
      expect(objectOf(receiver.about(created.id), 'checkout.session.completed')).toMatchObject({
        consent: { promotions },
      })
    }
  })
})

describe('recovery URLs', () => {
  it('opens one copy of the expired session, pays it with recovered_from, then says it is complete', async () => {
    const created = await recoverable({
      line_items: [
        { price: LIFETIME, quantity: 2 },
        { price: ULTIMATE, quantity: 1 },
      ],
      customer_email: 'cart@example.com',
      client_reference_id: 'user_42',
      metadata: { userId: '42', plan: 'standard' },
      payment_intent_data: { metadata: { userId: '42' } },
      expires_at: nowSeconds() + 2 * HOUR,
    })
    const { expired } = await expiredThroughApi(created.id)
    const url = recoveryUrlOf(expired)

    const copy = await recover(url)
    expect(copy.id).not.toBe(created.id)
    expect(copy).toMatchObject({
      status: 'open',
      mode: 'payment',
      recovered_from: created.id,
      url: `${standIn.url}/checkout/${copy.id}`,
      amount_total: 2 * 14900 + 29900,
      customer_email: 'cart@example.com',
      client_reference_id: 'user_42',
      metadata: { userId: '42', plan: 'standard' },
      success_url: SUCCESS_URL,
      cancel_url: CANCEL_URL,
      allow_promotion_codes: true,
      after_expiration: { recovery: { allow_promotion_codes: true, enabled: true, expires_at: null, url: null } },
      consent_collection: { promotions: 'auto', terms_of_service: 'none' },
      consent: null,
    })
    expect(copy.expires_at).toBe(copy.created + DAY)
    const lines = await stripe.checkout.sessions.listLineItems(copy.id)
    expect(lines.data.map((line) => [line.price?.id, line.quantity])).toEqual([
      [LIFETIME, 2],
      [ULTIMATE, 1],
    ])
    // Opened again while the copy is open: the same copy.
    expect((await recover(url)).id).toBe(copy.id)

    const sent = await standIn.pay(copy.id)
    const completed = objectOf<Stripe.Checkout.Session>(sent, 'checkout.session.completed')
    expect(completed).toMatchObject({ id: copy.id, status: 'complete', recovered_from: created.id })
    const paymentIntent = await stripe.paymentIntents.retrieve(idIn(completed.payment_intent))
    expect(paymentIntent.metadata).toEqual({ userId: '42' })
    await standIn.settled()
    expect(receiver.rejected).toEqual([])
    expect(objectOf(receiver.about(copy.id), 'checkout.session.completed')).toMatchObject({
      recovered_from: created.id,
    })

    const done = await open(url)
    expect(done.status).toBe(200)
    expect(await done.text()).toContain('This checkout is already complete.')
  })

  it('copies a subscription checkout without promotion codes when its recovery allows none, again once a copy expired', async () => {
    const created = await session({
      mode: 'subscription',
      line_items: [{ price: MONTHLY, quantity: 1 }],
      subscription_data: { metadata: { userId: '7' } },
      after_expiration: { recovery: { enabled: true } },
    })
    const url = recoveryUrlOf(objectOf(await standIn.expire(created.id), 'checkout.session.expired'))
    const copy = await recover(url)
    expect(copy).toMatchObject({
      mode: 'subscription',
      recovered_from: created.id,
      allow_promotion_codes: false,
      consent_collection: null,
      after_expiration: { recovery: { allow_promotion_codes: false, enabled: true } },
    })

    // The copy expires in turn: it has a recovery URL of its own, and the first URL makes a new copy.
    const copyExpired = objectOf<Stripe.Checkout.Session>(await standIn.expire(copy.id), 'checkout.session.expired')
    expect(recoveryUrlOf(copyExpired)).not.toBe(url)
    const second = await recover(url)
    expect(second.id).not.toBe(copy.id)
    expect(second.recovered_from).toBe(created.id)

    const sent = await standIn.pay(second.id)
    expect(objectOf(sent, 'checkout.session.completed')).toMatchObject({ recovered_from: created.id })
    expect(objectOf<Stripe.Subscription>(sent, 'customer.subscription.created').metadata).toEqual({ userId: '7' })
  })

  it('answers an unknown token 404 and a URL past its 30 days 410', async () => {
    const unknown = await open(`${standIn.url}/r/test_unknown`)
    expect(unknown.status).toBe(404)
    expect(await unknown.text()).toContain('This checkout link is not valid.')

    const created = await recoverable()
    const url = recoveryUrlOf(objectOf(await standIn.expire(created.id), 'checkout.session.expired'))
    standIn.expireRecovery(created.id)
    const gone = await open(url)
    expect(gone.status).toBe(410)
    expect(await gone.text()).toContain('This checkout link has expired.')
    const recovery = (await stripe.checkout.sessions.retrieve(created.id)).after_expiration?.recovery
    expect(recovery?.expires_at).toBeLessThanOrEqual(nowSeconds())

    // The same by the clock: 30 days after the expiry.
    const other = await recoverable()
    const otherUrl = recoveryUrlOf(objectOf(await standIn.expire(other.id), 'checkout.session.expired'))
    vi.useFakeTimers({ toFake: ['Date'] })
    try {
      vi.setSystemTime(Date.now() + 30 * DAY * 1000 - 60_000)
      expect((await open(otherUrl)).status).toBe(303)
      vi.setSystemTime(Date.now() + 120_000)
      expect((await open(otherUrl)).status).toBe(410)
    } finally {
      vi.useRealTimers()
    }
  })
})

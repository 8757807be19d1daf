import crypto from 'node:crypto'

import type { Payload, PayloadRequest } from 'payload'
import type Stripe from 'stripe'

import type { User } from '../payload-types'

import { referralMetadata } from '../affiliates/attribution'
import '../affiliates/runtime'
import { track } from '../analytics/track'
import { optionalRuntimeOf } from '../config/runtime'
import { executeOn, sql } from '../db/transaction'
import { accountOf } from '../http/account'
import { ServiceError } from '../http/errors'
import { processorCustomerOf } from './customers'
import { planForPrice } from './store'
import { processorFailure } from './errors'
import { CHANGE_METADATA, licenseChangeOf } from './license-change-kinds'
import type { CheckoutTaxes, ConfiguredBilling } from './runtime'
import { DEFAULT_RECOVERY, type RecoverySettings } from '../recovery/states'

export type CheckoutRequest = {
  priceId: string
  /** Seats: how many people the license covers (1 up to the plan's maxSeats); 1 when left out. */
  quantity?: number
  /** The client's Idempotency-Key header, when it sent one. */
  idempotencyKey: string | null
  /** Tells anonymous callers apart for the derived idempotency key (address and user agent). */
  clientFingerprint: string
  /** The visitor's referral cookie (`kit_ref`), when they came through an affiliate's link. */
  referral?: string | null
  now?: Date
}

/** Two identical checkout requests this close together are one (a double click, a retry). */
const DEDUPE_WINDOW_MS = 10_000

const hash = (value: string) => crypto.createHash('sha256').update(value).digest('hex').slice(0, 40)

/**
 * Open a hosted checkout for a plan's price. Writes nothing: the webhook is the only writer of
 * purchases, subscriptions and licenses.
 */
export const createCheckoutSession = async (
  req: PayloadRequest,
  billing: ConfiguredBilling,
  request: CheckoutRequest,
): Promise<{ url: string; id: string }> => {
  const { mode } = billing
  const plan = await planForPrice(req, request.priceId)
  if (!plan || !plan.active || plan.isFree) {
    throw new ServiceError(400, 'unknown_price', `The price ${request.priceId} is not for sale.`)
  }

  let price: Stripe.Price
  try {
    price = await billing.prices.retrieve(request.priceId)
  } catch (error) {
    throw processorFailure(error, { priceId: request.priceId })
  }
  if (price.livemode !== (mode === 'live')) {
    throw new ServiceError(
      400,
      'processor_mode_mismatch',
      'This price belongs to the other processor mode (test and live are never mixed).',
    )
  }
  if (!price.active) throw new ServiceError(400, 'unknown_price', `The price ${request.priceId} is not for sale.`)
  const quantity = request.quantity ?? 1
  const maxSeats = plan.maxSeats ?? 1
  if (!Number.isInteger(quantity) || quantity < 1 || quantity > maxSeats) {
    throw new ServiceError(
      400,
      'invalid_quantity',
      maxSeats === 1
        ? `${plan.slug} licenses cover one person: quantity must be 1.`
        : `quantity must be a whole number from 1 to ${maxSeats}.`,
      undefined,
      { maxSeats },
    )
  }

  const user = accountOf(req)
  const recurring = price.type === 'recurring'
  const billingCycle = recurring ? (price.recurring?.interval === 'year' ? 'yearly' : 'monthly') : 'lifetime'
  const principal = user ? `user:${user.id}` : `anon:${hash(request.clientFingerprint)}`
  // The quantity is part of what is bought: two checkouts of different sizes are two checkouts.
  const { key, openedAt } = await checkoutWindow(
    req.payload,
    `checkout:${principal}`,
    quantity === 1 ? price.id : `${price.id}x${quantity}`,
    request,
    { recordClientKey: true },
  )
  const allowPromotionCodes = Boolean(plan.allowPromotionCodes)
  const referral = await referralMetadata(
    req,
    optionalRuntimeOf(req.payload, 'affiliates'),
    request.referral ?? null,
    user,
  )
  return openHostedCheckout(req, billing, {
    user,
    price,
    metadata: {
      plan_id: plan.slug,
      price_id: price.id,
      billing_cycle: billingCycle,
      seats: String(quantity),
      ...referral,
    },
    quantity,
    params: {
      allow_promotion_codes: allowPromotionCodes,
      cancel_url: `${billing.serverUrl}/#pricing`,
      ...recoveryParams(billing.settings.recovery ?? DEFAULT_RECOVERY, { openedAt, allowPromotionCodes }),
    },
    idempotencyKey: key,
  })
}

const IDEMPOTENCY_KEY = /^[A-Za-z0-9_.:-]{1,200}$/

/** The client's `Idempotency-Key` header, when it sent one; 400 `invalid_request` for a malformed one. */
export const clientIdempotencyKey = (headers: Headers): string | null => {
  const key = headers.get('idempotency-key')
  if (key !== null && !IDEMPOTENCY_KEY.test(key)) {
    throw new ServiceError(
      400,
      'invalid_request',
      'Idempotency-Key must be 1 to 200 letters, digits or ._:- characters.',
    )
  }
  return key
}

/** The keyed rows with an expiry the rate limits keep (src/auth/rate-limit.ts), outside Payload's schema. */
const KEYED_EXPIRIES = sql.identifier('rate_limits')

/** How long the processor keeps an idempotency key: a client's key names one checkout that long. */
const CLIENT_KEY_MS = 24 * 3600_000

/**
 * The second a window named `key` opened: the first request's, kept `ttlMs` in `rate_limits` by one
 * INSERT ... ON CONFLICT (so two servers agree), or now when none is open.
 */
const windowOpened = async (payload: Payload, key: string, now: number, ttlMs: number): Promise<number> => {
  // The window is named by the second it opened (it fits the integer column until 2038).
  const opened = Math.floor(now / 1000)
  const [taken] = await executeOn<{ points: number }>(
    payload,
    undefined,
    sql`INSERT INTO ${KEYED_EXPIRIES} (key, points, expire) VALUES (${key}, ${opened}, ${now + ttlMs})
        ON CONFLICT (key) DO UPDATE SET points = EXCLUDED.points, expire = EXCLUDED.expire WHERE ${KEYED_EXPIRIES}.expire <= ${now}
        RETURNING points`,
  )
  const open =
    taken ??
    (
      await executeOn<{ points: number }>(
        payload,
        undefined,
        sql`SELECT points FROM ${KEYED_EXPIRIES} WHERE key = ${key}`,
      )
    )[0]
  return open?.points ?? opened
}

/**
 * The idempotency key of a checkout: the client's own key when it sent one; else the price within a
 * window the first such request opens, kept DEDUPE_WINDOW_MS. A fixed clock bucket split a double click
 * whose two requests fell either side of a boundary into two checkouts (CI saw it as a flaky test).
 */
export const checkoutIdempotencyKey = async (
  payload: Payload,
  scope: string,
  what: string,
  request: { idempotencyKey: string | null; now?: Date },
): Promise<string> => (await checkoutWindow(payload, scope, what, request, { recordClientKey: false })).key

/**
 * checkoutIdempotencyKey, and when its checkout was first asked for (seconds). A plan checkout's expiry
 * counts from then, so a retry sends the processor the same parameters as the first request (it
 * refuses a key reused with others); for that a client's own key is remembered for as long as the
 * processor keeps it.
 */
const checkoutWindow = async (
  payload: Payload,
  scope: string,
  what: string,
  request: { idempotencyKey: string | null; now?: Date },
  { recordClientKey }: { recordClientKey: boolean },
): Promise<{ key: string; openedAt: number }> => {
  const now = (request.now ?? new Date()).getTime()
  if (request.idempotencyKey) {
    const key = `${scope}:${hash(request.idempotencyKey)}`
    const openedAt = recordClientKey
      ? await windowOpened(payload, `checkout-client-key:${hash(key)}`, now, CLIENT_KEY_MS)
      : Math.floor(now / 1000)
    return { key, openedAt }
  }
  const openedAt = await windowOpened(payload, `checkout-window:${hash(`${scope}|${what}`)}`, now, DEDUPE_WINDOW_MS)
  return { key: `${scope}:${hash(`${what}|${openedAt}`)}`, openedAt }
}

/**
 * What a plan checkout asks the processor for checkout recovery (docs/CHECKOUT_RECOVERY.md): an expiry
 * CHECKOUT_EXPIRES_HOURS after it was first asked for, and with CHECKOUT_RECOVERY a recovery link kept
 * 30 days after it expires (promotion codes as the plan allows) and the buyer's consent to promotional
 * email, without which no recovery email is sent.
 */
const recoveryParams = (
  recovery: RecoverySettings,
  { openedAt, allowPromotionCodes }: { openedAt: number; allowPromotionCodes: boolean },
): Partial<Stripe.Checkout.SessionCreateParams> => ({
  expires_at: openedAt + recovery.checkoutExpiresHours * 3600,
  ...(recovery.enabled
    ? {
        after_expiration: { recovery: { enabled: true, allow_promotion_codes: allowPromotionCodes } },
        consent_collection: { promotions: 'auto' as const },
      }
    : {}),
})

export type HostedCheckout = {
  user: User | null
  price: Stripe.Price
  /** The plan, price, cycle and seats; `user_id` is added for a signed-in buyer. */
  metadata: Record<string, string>
  /** The line's quantity: seats for a purchase (1 when left out). */
  quantity?: number
  /** Session parameters of this kind of checkout (discounts, promotion codes, where cancel goes). */
  params: Partial<Stripe.Checkout.SessionCreateParams>
  idempotencyKey: string
}

/**
 * Tax and invoice parameters as the processor documents them (docs/BILLING.md): automatic tax;
 * tax ID collection, which for an existing customer needs `customer_update[name]=auto` (and the
 * address, for tax); an invoice for a one-time payment, its metadata naming the plan (and the license,
 * for an upgrade or a renewal). A subscription is invoiced anyway.
 */
const taxParams = (
  taxes: CheckoutTaxes,
  { recurring, customer, metadata }: { recurring: boolean; customer: boolean; metadata: Record<string, string> },
): Partial<Stripe.Checkout.SessionCreateParams> => {
  const license = metadata[CHANGE_METADATA.upgrade] ?? metadata[CHANGE_METADATA.renewal]
  return {
    ...(taxes.automaticTax ? { automatic_tax: { enabled: true } } : {}),
    ...(taxes.taxIdCollection ? { tax_id_collection: { enabled: true } } : {}),
    ...(customer && (taxes.taxIdCollection || taxes.automaticTax)
      ? { customer_update: { ...(taxes.taxIdCollection ? { name: 'auto' as const } : {}), address: 'auto' as const } }
      : {}),
    ...(taxes.invoices && !recurring
      ? {
          invoice_creation: {
            enabled: true,
            invoice_data: {
              metadata: {
                plan_id: metadata.plan_id ?? '',
                ...(license ? { license_id: license } : {}),
                ...(metadata.user_id ? { user_id: metadata.user_id } : {}),
              },
            },
          },
        }
      : {}),
  }
}

/**
 * The processor's hosted checkout for one price: its metadata on the session and on the payment
 * intent or subscription, the signed-in buyer's processor customer reused, success on /success.
 */
export const openHostedCheckout = async (
  req: PayloadRequest,
  billing: ConfiguredBilling,
  checkout: HostedCheckout,
): Promise<{ url: string; id: string }> => {
  const { user, price } = checkout
  const recurring = price.type === 'recurring'
  const metadata: Record<string, string> = { ...checkout.metadata, ...(user ? { user_id: String(user.id) } : {}) }
  const customer = user ? await processorCustomerOf(req, user) : null
  const params: Stripe.Checkout.SessionCreateParams = {
    ...taxParams(billing.taxes, { recurring, customer: customer !== null, metadata }),
    mode: recurring ? 'subscription' : 'payment',
    line_items: [{ price: price.id, quantity: checkout.quantity ?? 1 }],
    metadata,
    success_url: `${billing.serverUrl}/success?session_id={CHECKOUT_SESSION_ID}`,
    ...checkout.params,
    ...(user ? { client_reference_id: String(user.id) } : {}),
    ...(customer ? { customer } : user ? { customer_email: user.email } : {}),
    ...(recurring
      ? { subscription_data: { metadata } }
      : { payment_intent_data: { metadata }, ...(customer ? {} : { customer_creation: 'always' as const }) }),
  }
  let opened: { url: string; id: string }
  try {
    const session = await billing.processor.checkout.sessions.create(params, {
      idempotencyKey: checkout.idempotencyKey,
    })
    if (!session.url) throw new Error(`checkout session ${session.id} has no url`)
    opened = { url: session.url, id: session.id }
  } catch (error) {
    if ((error as { type?: string }).type === 'StripeIdempotencyError') {
      throw new ServiceError(400, 'invalid_request', 'This Idempotency-Key was already used for a different checkout.')
    }
    throw processorFailure(error, { priceId: price.id })
  }
  await trackCheckoutStarted(req, opened.id, checkout.metadata)
  return opened
}

/**
 * The funnel's `checkout_started` (docs/INSIGHTS.md): the plan, price and kind only, never the
 * buyer; once per processor session, so an idempotent retry that gets the same session counts once.
 * On the pool, outside any transaction of the caller, and never a reason for the checkout to fail.
 */
const trackCheckoutStarted = async (req: PayloadRequest, sessionId: string, metadata: Record<string, string>) => {
  try {
    await track({ payload: req.payload } as PayloadRequest, {
      name: 'checkout_started',
      sourceId: sessionId,
      properties: {
        plan: metadata.plan_id ?? null,
        priceId: metadata.price_id ?? null,
        kind: licenseChangeOf(metadata)?.kind ?? 'purchase',
      },
    })
  } catch (error) {
    req.payload.logger.warn(
      { sessionId, error: (error instanceof Error ? error.message : String(error)).split('\n')[0] },
      'checkout_started was not recorded',
    )
  }
}

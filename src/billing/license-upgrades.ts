import type { PayloadRequest } from 'payload'
import type Stripe from 'stripe'

import { relationId } from '../db/relations'
import { inTransaction } from '../db/transaction'
import { ServiceError } from '../http/errors'
import { licenseNotYours } from '../licensing/status'
import { windowOfLicense } from '../licensing/store'
import { renewalOpensSomething } from '../licensing/update-window'
import type { License, Plan, User } from '../payload-types'
import { checkoutIdempotencyKey, openHostedCheckout } from './checkout'
import { processorFailure } from './errors'
import { CHANGE_METADATA } from './license-change-kinds'
import { upgradeWithoutPayment } from './license-changes'
import { netPaidFor, publishedReleases } from './license-credit'
import type { ConfiguredBilling } from './runtime'

/**
 * The customer's side of a license's life (docs/LICENSING.md): the quote and checkout of an upgrade
 * that pays the difference, and the checkout of a renewal. Like every checkout these write nothing:
 * the webhook applies what was paid (src/billing/license-changes.ts), and checks it all again then.
 */

/** How long an upgrade's credit can be redeemed: the checkout made with it expires within a day too. */
const COUPON_LIFETIME_SECONDS = 24 * 60 * 60

const notFound = licenseNotYours

/** The caller's own license: another customer's id answers exactly as an unknown one. */
const ownLicense = async (req: PayloadRequest, user: User, id: number): Promise<License> => {
  const license = (
    await req.payload.find({
      collection: 'licenses',
      where: { and: [{ id: { equals: id } }, { user: { equals: user.id } }] },
      limit: 1,
      depth: 0,
      req,
      overrideAccess: true,
    })
  ).docs[0]
  if (!license) throw notFound()
  return license
}

const planOf = (req: PayloadRequest, license: License): Promise<Plan> =>
  req.payload.findByID({ collection: 'plans', id: relationId(license.plan)!, depth: 0, req, overrideAccess: true })

/** A one-time price as the processor has it, checked to be for sale in this mode. */
const oneTimePrice = async (
  billing: ConfiguredBilling,
  priceId: string,
  refusal: ServiceError,
): Promise<Stripe.Price & { unit_amount: number }> => {
  let price: Stripe.Price
  try {
    price = await billing.prices.retrieve(priceId)
  } catch (error) {
    throw processorFailure(error)
  }
  if (
    !price.active ||
    price.type !== 'one_time' ||
    price.unit_amount === null ||
    price.livemode !== (billing.mode === 'live')
  )
    throw refusal
  return price as Stripe.Price & { unit_amount: number }
}

/** `price`: the target's price for all of the license's `seats`; `amount`: what is left to pay after the `credit`. */
export type UpgradeQuote = {
  from: string
  to: string
  amount: number
  currency: string
  credit: number
  price: number
  seats: number
}

type Quoted = {
  quote: UpgradeQuote
  license: License
  current: Plan
  target: Plan
  price: Stripe.Price & { unit_amount: number }
}

const notOffered = (message: string) => new ServiceError(409, 'upgrade_not_offered', message)

/**
 * What moving this license to a higher one-time plan costs: the target's price less what the license
 * paid before tax (its purchase and earlier upgrades, net of refunds), never below 0. Prices are before
 * tax too: the upgrade's checkout adds the tax on what is left to pay.
 */
const quote = async (
  req: PayloadRequest,
  billing: ConfiguredBilling,
  user: User,
  licenseId: number,
  targetSlug: string,
): Promise<Quoted> => {
  const license = await ownLicense(req, user, licenseId)
  const current = await planOf(req, license)
  if (
    license.source !== 'one_time_purchase' ||
    license.status !== 'active' ||
    current.isFree ||
    current.billing !== 'lifetime'
  ) {
    throw notOffered('Only an active license bought with a one-time payment can be upgraded.')
  }
  const target = (
    await req.payload.find({
      collection: 'plans',
      where: { and: [{ slug: { equals: targetSlug } }, { active: { equals: true } }] },
      limit: 1,
      depth: 0,
      req,
      overrideAccess: true,
    })
  ).docs[0]
  if (!target || target.isFree || target.billing !== 'lifetime' || !target.priceIds?.monthly) {
    throw notOffered(`"${targetSlug}" is not a one-time plan on sale.`)
  }
  if ((target.order ?? 0) <= (current.order ?? 0))
    throw notOffered(`Your license is ${current.name}: ${target.name} is not an upgrade of it.`)
  const price = await oneTimePrice(
    billing,
    target.priceIds.monthly,
    notOffered(`${target.name} is not on sale right now.`),
  )
  const paid = await netPaidFor(req, license)
  // The purchase's tax is known once its checkout's event arrives (seconds after paying): until then the credit is not.
  if (paid.taxPending) throw notOffered('Your payment is still being recorded: try again in a minute.')
  if (paid.currency !== null && paid.currency !== price.currency)
    throw notOffered('Your license was paid in another currency: contact support to upgrade it.')
  // A team license moves every seat: the target's price once per seat, less what all of them paid.
  const seats = Math.max(1, license.seats ?? 1)
  const total = price.unit_amount * seats
  const credit = Math.min(paid.amount, total)
  return {
    quote: {
      from: current.slug,
      to: target.slug,
      amount: total - credit,
      currency: price.currency,
      credit,
      price: total,
      seats,
    },
    license,
    current,
    target,
    price,
  }
}

/** GET /api/licenses/:id/upgrade?plan=: the quote. */
export const quoteUpgrade = async (
  req: PayloadRequest,
  billing: ConfiguredBilling,
  user: User,
  licenseId: number,
  targetSlug: string,
): Promise<UpgradeQuote> => (await quote(req, billing, user, licenseId, targetSlug)).quote

export type CheckoutRequestOptions = { idempotencyKey: string | null; now?: Date }

/**
 * POST /api/licenses/:id/upgrade {plan}: a hosted checkout of the target's own price with a single-use
 * coupon for the credit, or, when the credit covers the whole price, the upgrade at once.
 */
export const startUpgrade = async (
  req: PayloadRequest,
  billing: ConfiguredBilling,
  user: User,
  licenseId: number,
  targetSlug: string,
  options: CheckoutRequestOptions,
): Promise<{ url: string; id: string } | { upgraded: true }> => {
  const { quote: priced, license, current, target, price } = await quote(req, billing, user, licenseId, targetSlug)
  if (priced.amount === 0) {
    await inTransaction(req.payload, (tx) =>
      upgradeWithoutPayment(tx, {
        licenseId: license.id,
        userId: user.id,
        fromPlan: current,
        toPlan: target,
        credit: priced.credit,
        currency: priced.currency,
      }),
    )
    return { upgraded: true }
  }
  const scope = `upgrade:${user.id}:${license.id}:${target.slug}:${priced.credit}`
  const idempotencyKey = await checkoutIdempotencyKey(req.payload, scope, price.id, options)
  let coupon: Stripe.Coupon | null = null
  if (priced.credit > 0) {
    // From a ten-minute bucket, not the second: a retried request (a double click, a client's retry
    // with its Idempotency-Key) sends the same parameters, which the processor's idempotency requires.
    const now = Math.floor((options.now ?? new Date()).getTime() / 600_000) * 600
    try {
      coupon = await billing.processor.coupons.create(
        {
          amount_off: priced.credit,
          currency: priced.currency,
          duration: 'once',
          max_redemptions: 1,
          redeem_by: now + COUPON_LIFETIME_SECONDS,
          name: `Credit for your ${current.name} license`,
          metadata: { license_id: String(license.id), upgrade_to: target.slug },
        },
        { idempotencyKey: `${idempotencyKey}:coupon` },
      )
    } catch (error) {
      throw processorFailure(error)
    }
  }
  return openHostedCheckout(req, billing, {
    user,
    price,
    metadata: {
      plan_id: target.slug,
      price_id: price.id,
      billing_cycle: 'lifetime',
      [CHANGE_METADATA.upgrade]: String(license.id),
      [CHANGE_METADATA.fromPlan]: current.slug,
      [CHANGE_METADATA.credit]: String(priced.credit),
      seats: String(priced.seats),
    },
    quantity: priced.seats,
    // A coupon made for this checkout only; promotion codes cannot be combined with it.
    params: { ...(coupon ? { discounts: [{ coupon: coupon.id }] } : {}), ...returnUrls(billing, 'upgrade') },
    idempotencyKey,
  })
}

/** A change's checkout returns to the dashboard, which says the license is being updated. */
const returnUrls = (billing: ConfiguredBilling, kind: 'upgrade' | 'renewal') => ({
  success_url: `${billing.serverUrl}/dashboard?paid=${kind}`,
  cancel_url: `${billing.serverUrl}/dashboard`,
})

const renewalNotOffered = (message: string) => new ServiceError(409, 'renewal_not_offered', message)

/** POST /api/licenses/:id/renewal: a hosted checkout of the plan's renewal price. */
export const startRenewal = async (
  req: PayloadRequest,
  billing: ConfiguredBilling,
  user: User,
  licenseId: number,
  options: CheckoutRequestOptions,
): Promise<{ url: string; id: string }> => {
  const license = await ownLicense(req, user, licenseId)
  const plan = await planOf(req, license)
  if (license.status !== 'active') throw renewalNotOffered('Only an active license can be renewed.')
  if (!plan.renewalPriceId) throw renewalNotOffered(`The ${plan.name} plan does not sell renewals.`)
  const releases = await publishedReleases(req, options.now ?? new Date())
  if (!renewalOpensSomething(windowOfLicense(license), releases)) {
    throw renewalNotOffered('Your license already covers every release: there is nothing to renew yet.')
  }
  const price = await oneTimePrice(
    billing,
    plan.renewalPriceId,
    renewalNotOffered(`Renewals of ${plan.name} are not on sale right now.`),
  )
  return openHostedCheckout(req, billing, {
    user,
    price,
    // Every seat's updates are renewed: the renewal price once per seat.
    metadata: {
      plan_id: plan.slug,
      price_id: price.id,
      billing_cycle: 'lifetime',
      [CHANGE_METADATA.renewal]: String(license.id),
      seats: String(license.seats ?? 1),
    },
    quantity: Math.max(1, license.seats ?? 1),
    params: returnUrls(billing, 'renewal'),
    idempotencyKey: await checkoutIdempotencyKey(req.payload, `renewal:${user.id}:${license.id}`, price.id, options),
  })
}

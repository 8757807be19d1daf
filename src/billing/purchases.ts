import type { PayloadRequest } from 'payload'

import { track } from '../analytics/track'
import { queueJob } from '../jobs/queue'
import { syncLicense } from '../licensing/sync'
import { endSeatsBeyondPaid } from '../teams/seats'
import type { OneTimePurchase, UserSubscription } from '../payload-types'
import {
  type Buyer,
  findPurchase,
  insertPurchase,
  markPurchaseRevoked,
  type PlanRef,
  type PurchaseWrite,
  updatePurchase,
} from './store'
import { type DisputeState, laterDisputeState, worstDisputeState } from '../licensing/status'
import type { SubscriptionStatus } from '../licensing/subscription-statuses'
import { relationId as relId } from '../db/relations'
import type { RecoverySettings } from '../recovery/states'

export type BillingSettings = {
  graceDays: number
  /** Checkout recovery's settings; the defaults when left out. */
  recovery?: RecoverySettings
}

type PurchaseFacts = {
  paymentIntentId: string
  checkoutSessionId?: string | null
  customerId?: string | null
  chargeId?: string | null
  priceId?: string | null
  /** Seats bought (the checkout's quantity, from its metadata). */
  quantity?: number | null
  amount?: number | null
  /** The tax in `amount`: the checkout's own event says it (null: not known yet). */
  taxAmount?: number | null
  currency?: string | null
  status?: 'pending' | 'succeeded' | 'failed'
  refundedAmount?: number
  disputeStatus?: DisputeState
  plan?: PlanRef | null
  buyer?: Buyer | null
  email?: string | null
}

const STATUS_RANK = { pending: 0, failed: 1, succeeded: 2 } as const

/**
 * Record what the processor says about a one-time payment and bring its license in line. Facts only
 * move forward (a succeeded payment never becomes pending again; a refund never shrinks), so the
 * events of one purchase can be applied in any order and any number of times.
 */
export const applyPurchaseFacts = async (
  req: PayloadRequest,
  facts: PurchaseFacts,
  settings: BillingSettings,
  /** The purchase as recorded, when the caller read it under the payment intent's lock; else read here. */
  recorded?: OneTimePurchase | null,
) => {
  const existing = recorded === undefined ? await findPurchase(req, facts.paymentIntentId) : recorded

  const status =
    existing && facts.status && STATUS_RANK[existing.status] > STATUS_RANK[facts.status]
      ? existing.status
      : (facts.status ?? existing?.status ?? 'pending')
  const plan = relId(existing?.plan) ?? facts.plan?.id ?? null
  if (plan === null) {
    throw new Error(`payment ${facts.paymentIntentId}: no plan sells price ${facts.priceId ?? '(unknown)'}`)
  }
  const data: PurchaseWrite = {
    status,
    processorCheckoutSessionId: facts.checkoutSessionId ?? existing?.processorCheckoutSessionId ?? null,
    processorCustomerId: facts.customerId ?? existing?.processorCustomerId ?? null,
    processorChargeId: facts.chargeId ?? existing?.processorChargeId ?? null,
    processorPriceId: facts.priceId ?? existing?.processorPriceId ?? null,
    quantity: facts.quantity ?? existing?.quantity ?? 1,
    amount: facts.amount ?? existing?.amount ?? null,
    taxAmount: facts.taxAmount ?? existing?.taxAmount ?? null,
    currency: facts.currency ?? existing?.currency ?? null,
    refundedAmount: Math.max(facts.refundedAmount ?? 0, existing?.refundedAmount ?? 0),
    disputeStatus: laterDisputeState(existing?.disputeStatus ?? 'none', facts.disputeStatus ?? 'none'),
    plan,
    user: relId(existing?.user) ?? facts.buyer?.id ?? null,
    email: existing?.email ?? facts.email?.toLowerCase() ?? null,
    grantedAt: existing?.grantedAt ?? (status === 'succeeded' ? new Date().toISOString() : null),
  }
  const purchase = existing
    ? await updatePurchase(req, existing.id, data)
    : await insertPurchase(req, facts.paymentIntentId, data)

  // A purchase inserted just now has no license yet, and no other transaction can give it one.
  const result = await syncLicense(
    req,
    { collection: 'one_time_purchases', doc: purchase },
    settings.graceDays,
    new Date(),
    { isNew: !existing },
  )
  if (result.license && result.license.status === 'revoked' && !purchase.revokedAt) {
    await markPurchaseRevoked(req, purchase.id, new Date().toISOString())
  }
  await afterLicenseSync(req, result, purchase.user, purchase.email, purchase.processorPaymentIntentId)
  if (status === 'succeeded' && (!existing || existing.status !== 'succeeded')) {
    await track(req, {
      name: 'purchase_completed',
      userId: relId(purchase.user),
      email: purchase.email,
      properties: { plan: facts.plan?.slug ?? null, amount: purchase.amount, currency: purchase.currency },
      sourceId: facts.paymentIntentId,
    })
  }
  return purchase
}

type SubscriptionFacts = {
  subscriptionId: string
  customerId: string | null
  priceId: string | null
  /** Seats: the subscription item's quantity. */
  quantity: number
  status: SubscriptionStatus
  billingCycle: 'monthly' | 'yearly' | null
  currentPeriodEnd: Date | null
  cancelAtPeriodEnd: boolean
  canceledAt: Date | null
  plan: PlanRef | null
  buyer: Buyer | null
  email: string | null
  /** When these facts were read from the processor. */
  snapshotAt: Date
}

/**
 * Record the current state of a subscription (read fresh from the processor) and bring its license
 * in line. Reads race: two instances may apply two events of one subscription at once, and the one
 * that read first may commit last. So each row keeps when its state was read, and under the
 * subscription's lock (the caller holds it) a read older than the recorded one changes nothing.
 */
export const applySubscriptionFacts = async (
  req: PayloadRequest,
  facts: SubscriptionFacts,
  settings: BillingSettings,
) => {
  const { payload } = req
  const existing = (
    await payload.find({
      collection: 'user_subscriptions',
      where: { processorSubscriptionId: { equals: facts.subscriptionId } },
      limit: 1,
      pagination: false,
      depth: 0,
      req,
    })
  ).docs[0]
  if (existing?.processorSnapshotAt && new Date(existing.processorSnapshotAt).getTime() > facts.snapshotAt.getTime()) {
    payload.logger.info({ msg: 'older subscription state not applied', subscription: facts.subscriptionId })
    return { subscription: existing, previous: existing, stale: true }
  }
  const data: Partial<UserSubscription> = {
    processorCustomerId: facts.customerId,
    processorPriceId: facts.priceId,
    quantity: facts.quantity,
    status: facts.status,
    billingCycle: facts.billingCycle,
    currentPeriodEnd: facts.currentPeriodEnd?.toISOString() ?? null,
    cancelAtPeriodEnd: facts.cancelAtPeriodEnd,
    canceledAt: facts.canceledAt?.toISOString() ?? null,
    plan: facts.plan?.id ?? relId(existing?.plan),
    user: relId(existing?.user) ?? facts.buyer?.id ?? null,
    email: existing?.email ?? facts.email?.toLowerCase() ?? null,
    processorSnapshotAt: facts.snapshotAt.toISOString(),
  }
  if (!data.plan)
    throw new Error(`subscription ${facts.subscriptionId}: no plan sells price ${facts.priceId ?? '(unknown)'}`)
  const subscription = existing
    ? await payload.update({
        collection: 'user_subscriptions',
        id: existing.id,
        data,
        req,
        overrideAccess: true,
        depth: 0,
      })
    : await payload.create({
        collection: 'user_subscriptions',
        data: { ...data, processorSubscriptionId: facts.subscriptionId, status: facts.status },
        req,
        overrideAccess: true,
        depth: 0,
      })
  const result = await syncLicense(req, { collection: 'user_subscriptions', doc: subscription }, settings.graceDays)
  await afterLicenseSync(req, result, subscription.user, subscription.email, facts.subscriptionId)
  if (!existing && facts.status !== 'incomplete' && facts.status !== 'incomplete_expired') {
    await track(req, {
      name: 'subscription_started',
      userId: relId(subscription.user),
      email: subscription.email,
      properties: { plan: facts.plan?.slug ?? null, billingCycle: facts.billingCycle, status: facts.status },
      sourceId: facts.subscriptionId,
    })
  }
  if (existing && relId(existing.plan) !== relId(subscription.plan)) {
    await track(req, {
      name: 'plan_changed',
      userId: relId(subscription.user),
      email: subscription.email,
      properties: { from: relId(existing.plan), to: facts.plan?.slug ?? null, priceId: facts.priceId },
      sourceId: `${facts.subscriptionId}:${facts.priceId}:${facts.snapshotAt.getTime()}`,
    })
  }
  if (facts.status === 'canceled') {
    await track(req, {
      name: 'subscription_canceled',
      userId: relId(subscription.user),
      email: subscription.email,
      properties: { plan: facts.plan?.slug ?? null },
      sourceId: facts.subscriptionId,
    })
  }
  return { subscription, previous: existing ?? null, stale: false }
}

/**
 * Refunds and disputes of a subscription's invoices, summed up on the subscription: the worst dispute
 * over all its payments (open suspends the license, lost revokes it, won restores it) and whether its
 * latest payment was refunded in full (recorded; the license keeps following the subscription's
 * status). The caller holds the subscription's lock.
 */
export const applySubscriptionChargebacks = async (
  req: PayloadRequest,
  subscription: UserSubscription,
  settings: BillingSettings,
) => {
  const payments = (
    await req.payload.find({
      collection: 'payment_history',
      where: { and: [{ subscription: { equals: subscription.id } }, { status: { equals: 'succeeded' } }] },
      sort: '-paidAt',
      limit: 1000,
      depth: 0,
      pagination: false,
      req,
    })
  ).docs
  const disputeStatus = worstDisputeState(payments.map((payment) => payment.disputeStatus ?? 'none'))
  const latest = payments[0]
  const fullyRefunded = Boolean(latest && latest.amount > 0 && (latest.refundedAmount ?? 0) >= latest.amount)
  if (disputeStatus === (subscription.disputeStatus ?? 'none') && fullyRefunded === Boolean(subscription.fullyRefunded))
    return subscription
  const updated = await req.payload.update({
    collection: 'user_subscriptions',
    id: subscription.id,
    data: { disputeStatus, fullyRefunded },
    req,
    overrideAccess: true,
    depth: 0,
  })
  const result = await syncLicense(req, { collection: 'user_subscriptions', doc: updated }, settings.graceDays)
  await afterLicenseSync(req, result, updated.user, updated.email, updated.processorSubscriptionId)
  return updated
}

/**
 * Bring a license in line with its purchase or subscription again, from the rows as they are: after a
 * chargeback on one of its upgrade or renewal payments opened or closed (src/licensing/status.ts,
 * withChangeDisputes). A license staff granted by hand has no source and is left as it is.
 */
export const resyncLicense = async (req: PayloadRequest, licenseId: number, settings: BillingSettings) => {
  const license = await req.payload.findByID({
    collection: 'licenses',
    id: licenseId,
    depth: 0,
    req,
    overrideAccess: true,
    disableErrors: true,
  })
  const purchaseId = relId(license?.oneTimePurchase)
  const subscriptionId = relId(license?.subscription)
  if (purchaseId !== null) {
    const doc = await req.payload.findByID({
      collection: 'one_time_purchases',
      id: purchaseId,
      depth: 0,
      req,
      overrideAccess: true,
    })
    const result = await syncLicense(req, { collection: 'one_time_purchases', doc }, settings.graceDays)
    await afterLicenseSync(req, result, doc.user, doc.email, doc.processorPaymentIntentId)
  } else if (subscriptionId !== null) {
    const doc = await req.payload.findByID({
      collection: 'user_subscriptions',
      id: subscriptionId,
      depth: 0,
      req,
      overrideAccess: true,
    })
    const result = await syncLicense(req, { collection: 'user_subscriptions', doc }, settings.graceDays)
    await afterLicenseSync(req, result, doc.user, doc.email, doc.processorSubscriptionId)
  }
}

/**
 * A new license gets its email (through the jobs queue, in this transaction); a revoked one an analytics
 * event; one whose seats dropped ends the seats beyond them.
 */
const afterLicenseSync = async (
  req: PayloadRequest,
  result: Awaited<ReturnType<typeof syncLicense>>,
  user: unknown,
  email: string | null | undefined,
  sourceId: string,
) => {
  const license = result.license
  if (!license) return
  // The paid quantity dropped below the seats in use: the newest seats beyond it end (under the license's lock, taken by the sync).
  if (result.previousSeats !== null && (license.seats ?? 1) < result.previousSeats)
    await endSeatsBeyondPaid(req, license.id)
  if (result.created) {
    await queueJob(req, { task: 'sendLicenseEmail', input: { licenseId: license.id } })
    await track(req, {
      name: 'license_granted',
      userId: relId(user),
      email,
      properties: { licenseId: license.id },
      sourceId,
    })
  }
  if (license.status === 'revoked' && result.previousStatus !== 'revoked') {
    await track(req, {
      name: 'license_revoked',
      userId: relId(user),
      email,
      properties: { licenseId: license.id, reason: license.revokedReason ?? null },
      sourceId: `${sourceId}:${license.revokedReason ?? 'revoked'}`,
    })
  }
}

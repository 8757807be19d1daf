import type { PayloadRequest, Where } from 'payload'

import { track } from '../analytics/track'
import { relationId } from '../db/relations'
import { lockKey } from '../db/transaction'
import { type DisputeState, laterDisputeState } from '../licensing/status'
import { lockLicense, planWindow, windowFields, windowOfLicense } from '../licensing/store'
import { newestStableMajor, renewalOpensSomething, renewedWindow, type UpdateWindow } from '../licensing/update-window'
import type { License, LicenseChange, Plan } from '../payload-types'
import { ServiceError } from '../http/errors'
import { recordAudit } from '../staff/audit'
import { CHANGE_METADATA, type LicenseChangeRef, type RefusalReason } from './license-change-kinds'
import { netPaidFor, publishedReleases } from './license-credit'
import { planForPrice } from './store'

/**
 * The webhook's side of a paid change to an existing license (docs/LICENSING.md): an upgrade to a
 * higher plan that paid the difference, or a renewal of the license's updates. Its payment is one
 * `license_changes` row, whatever order and however often its checkout, payment intent, refund and
 * dispute events arrive:
 * - facts only move forward (paid stays paid, a refund never shrinks, a dispute never reopens);
 * - the first time the payment is seen paid, the change is decided once, under the license's lock:
 *   applied, or refused and refunded in full (a second upgrade from another tab, a license no longer
 *   active, a license of someone else, a credit larger than what the license paid by then);
 * - an applied change whose payment is refunded in full or lost to a chargeback is reversed: the
 *   license returns to the plan and window it had, if the change is still what it holds.
 */

export type ChangePaymentFacts = {
  ref: LicenseChangeRef
  metadata: Record<string, string>
  paymentIntentId: string | null
  checkoutSessionId?: string | null
  chargeId?: string | null
  amount?: number | null
  /** The tax in `amount`, from the checkout's event (null: not known yet). */
  taxAmount?: number | null
  currency?: string | null
  status?: 'pending' | 'succeeded' | 'failed'
  refundedAmount?: number
  disputeStatus?: DisputeState
  email?: string | null
}

type Snapshot = {
  plan: number | null
  updatePolicy: UpdateWindow['policy']
  updatesMajor: number | null
  updatesUntil: string | null
  upgradedAt: string | null
}

const snapshotOf = (license: License): Snapshot => ({
  plan: relationId(license.plan),
  ...windowFields(windowOfLicense(license)),
  upgradedAt: license.upgradedAt ?? null,
})

const findChange = async (req: PayloadRequest, facts: ChangePaymentFacts): Promise<LicenseChange | undefined> => {
  const or: Where[] = []
  if (facts.paymentIntentId) or.push({ processorPaymentIntentId: { equals: facts.paymentIntentId } })
  if (facts.checkoutSessionId) or.push({ processorCheckoutSessionId: { equals: facts.checkoutSessionId } })
  if (or.length === 0) return undefined
  return (
    await req.payload.find({
      collection: 'license_changes',
      where: { or },
      limit: 1,
      pagination: false,
      depth: 0,
      req,
      overrideAccess: true,
    })
  ).docs[0]
}

const STATUS_RANK = { pending: 0, failed: 1, succeeded: 2 } as const

/** The payment's status as the processor's facts say it: paid stays paid. */
const paidState = (
  existing: LicenseChange | undefined,
  incoming: ChangePaymentFacts['status'],
): 'pending' | 'failed' | 'succeeded' => {
  const before: 'pending' | 'failed' | 'succeeded' = existing
    ? existing.status === 'failed'
      ? 'failed'
      : existing.status === 'pending'
        ? 'pending'
        : 'succeeded'
    : 'pending'
  const next = incoming ?? before
  return STATUS_RANK[before] > STATUS_RANK[next] ? before : next
}

export type ChangeOutcome = { change: LicenseChange; decided: 'applied' | 'refused' | null; reversed: boolean }

/**
 * Record a license change's payment and decide or reverse the change. Runs inside the event's
 * transaction, under the payment's lock.
 */
export const recordLicenseChange = async (req: PayloadRequest, facts: ChangePaymentFacts): Promise<ChangeOutcome> => {
  const lockName = facts.paymentIntentId ?? facts.checkoutSessionId
  if (!lockName) throw new Error('a license change payment without a payment intent or checkout session')
  await lockKey(req, lockName)
  const existing = await findChange(req, facts)
  const paid = paidState(existing, facts.status)
  const refundedAmount = Math.max(facts.refundedAmount ?? 0, existing?.refundedAmount ?? 0)
  const disputeStatus = laterDisputeState(existing?.disputeStatus ?? 'none', facts.disputeStatus ?? 'none')
  const common = {
    processorPaymentIntentId: existing?.processorPaymentIntentId ?? facts.paymentIntentId ?? null,
    processorCheckoutSessionId: existing?.processorCheckoutSessionId ?? facts.checkoutSessionId ?? null,
    processorChargeId: facts.chargeId ?? existing?.processorChargeId ?? null,
    amount: facts.amount ?? existing?.amount ?? null,
    taxAmount: facts.taxAmount ?? existing?.taxAmount ?? null,
    currency: facts.currency ?? existing?.currency ?? null,
    refundedAmount,
    disputeStatus,
  }
  let change: LicenseChange = existing
    ? await req.payload.update({
        collection: 'license_changes',
        id: existing.id,
        data: common,
        req,
        overrideAccess: true,
        depth: 0,
      })
    : await req.payload.create({
        collection: 'license_changes',
        data: {
          ...common,
          kind: facts.ref.kind,
          status: paid === 'failed' ? 'failed' : 'pending',
          credit: facts.ref.kind === 'upgrade' ? Number(facts.metadata[CHANGE_METADATA.credit] ?? 0) || 0 : null,
        },
        req,
        overrideAccess: true,
        depth: 0,
      })

  let decided: ChangeOutcome['decided'] = null
  if ((change.status === 'pending' || change.status === 'failed') && paid === 'succeeded') {
    ;({ change, decided } = await decide(req, change, facts))
  } else if (change.status === 'pending' && paid === 'failed') {
    change = await req.payload.update({
      collection: 'license_changes',
      id: change.id,
      data: { status: 'failed' },
      req,
      overrideAccess: true,
      depth: 0,
    })
  }
  let reversed = false
  const lost = disputeStatus === 'lost' || ((change.amount ?? 0) > 0 && refundedAmount >= (change.amount ?? 0))
  if (change.status === 'applied' && lost) {
    change = await reverse(req, change)
    reversed = true
  }
  return { change, decided, reversed }
}

type Decision = { change: LicenseChange; decided: 'applied' | 'refused' }

/** Decide a change paid just now, under the license's lock: apply it, or refuse it and refund the payment. */
const decide = async (req: PayloadRequest, change: LicenseChange, facts: ChangePaymentFacts): Promise<Decision> => {
  const license = facts.ref.licenseId === null ? null : await lockLicense(req, facts.ref.licenseId)
  const refuse = (reason: RefusalReason, extra: Partial<LicenseChange> = {}) =>
    refuseChange(req, change, license, facts, reason, extra)
  if (!license) return refuse('license_not_found')
  // The metadata is the service's own, but the license id is checked against its owner all the same.
  if (String(relationId(license.user) ?? '') !== (facts.metadata.user_id ?? '')) return refuse('not_the_owner')
  if (license.status !== 'active') return refuse('license_not_active')
  const current = await req.payload.findByID({
    collection: 'plans',
    id: relationId(license.plan)!,
    depth: 0,
    req,
    overrideAccess: true,
  })
  const now = new Date()
  if (facts.ref.kind === 'upgrade') {
    const ref = await planForPrice(req, facts.metadata.price_id)
    const target = ref
      ? await req.payload.findByID({ collection: 'plans', id: ref.id, depth: 0, req, overrideAccess: true })
      : null
    if (!target || target.billing !== 'lifetime' || target.isFree || (target.order ?? 0) <= (current.order ?? 0)) {
      return refuse('already_upgraded', { toPlan: target?.id ?? null, fromPlan: current.id })
    }
    if (facts.metadata[CHANGE_METADATA.fromPlan] !== current.slug)
      return refuse('plan_changed', { toPlan: target.id, fromPlan: current.id })
    // The credit was what the license had paid when the checkout was made; a refund since then shrinks it.
    const credit = Number(facts.metadata[CHANGE_METADATA.credit] ?? 0) || 0
    if (credit > (await netPaidFor(req, license)).amount)
      return refuse('credit_changed', { toPlan: target.id, fromPlan: current.id })
    const window = await planWindow(req, target.id, now)
    return applyChange(
      req,
      change,
      license,
      { plan: target.id, ...windowFields(window), upgradedAt: now.toISOString() },
      { from: current, to: target, now },
    )
  }
  if (current.renewalPriceId !== facts.metadata.price_id)
    return refuse('plan_changed', { fromPlan: current.id, toPlan: current.id })
  const window = windowOfLicense(license)
  const releases = await publishedReleases(req, now)
  if (!renewalOpensSomething(window, releases))
    return refuse('nothing_to_renew', { fromPlan: current.id, toPlan: current.id })
  const newestMajor = newestStableMajor(releases.map((release) => release.version))
  const renewed = renewedWindow(
    window,
    { updatePolicy: current.updatePolicy ?? 'lifetime', updateMonths: current.updateMonths ?? null },
    newestMajor,
    now,
  )
  return applyChange(req, change, license, windowFields(renewed), { from: current, to: current, now })
}

const licenseChanged = (req: PayloadRequest, id: number, data: Partial<License>) =>
  req.payload.update({ collection: 'licenses', id, data, req, overrideAccess: true, depth: 0 })

const applyChange = async (
  req: PayloadRequest,
  change: LicenseChange,
  license: License,
  data: Partial<License>,
  { from, to, now }: { from: Plan; to: Plan; now: Date },
): Promise<Decision> => {
  const before = snapshotOf(license)
  const updated = await licenseChanged(req, license.id, data)
  const after = snapshotOf(updated)
  const applied = await req.payload.update({
    collection: 'license_changes',
    id: change.id,
    data: {
      status: 'applied',
      license: license.id,
      user: relationId(license.user),
      fromPlan: from.id,
      toPlan: to.id,
      licenseBefore: before,
      licenseAfter: after,
      appliedAt: now.toISOString(),
    },
    req,
    overrideAccess: true,
    depth: 0,
  })
  const upgrade = change.kind === 'upgrade'
  await recordAudit(req, {
    action: upgrade ? 'license.upgrade' : 'license.renewal',
    targetCollection: 'licenses',
    targetId: String(license.id),
    reason: upgrade ? `Paid upgrade from ${from.name} to ${to.name}` : `Paid renewal of updates`,
    before,
    after,
  })
  await track(req, {
    name: upgrade ? 'license_upgraded' : 'license_renewed',
    userId: relationId(license.user),
    email: license.email,
    properties: {
      licenseId: license.id,
      from: from.slug,
      to: to.slug,
      amount: change.amount ?? 0,
      currency: change.currency,
      updates: after.updatePolicy,
    },
    sourceId: `license_change:${change.id}`,
  })
  await req.payload.jobs.queue({ task: 'sendLicenseChangeEmail', input: { changeId: change.id }, req })
  return { change: applied, decided: 'applied' }
}

const refuseChange = async (
  req: PayloadRequest,
  change: LicenseChange,
  license: License | null,
  facts: ChangePaymentFacts,
  reason: RefusalReason,
  extra: Partial<LicenseChange>,
): Promise<Decision> => {
  req.payload.logger.warn({
    msg: 'license change refused: the payment is refunded',
    changeId: change.id,
    kind: change.kind,
    reason,
  })
  const refused = await req.payload.update({
    collection: 'license_changes',
    id: change.id,
    // A license of someone else is not linked to this payment, nor is its buyer told who owns it.
    data: {
      status: 'refused',
      reason,
      ...(license && reason !== 'not_the_owner' ? { license: license.id, user: relationId(license.user) } : {}),
      ...extra,
    },
    req,
    overrideAccess: true,
    depth: 0,
  })
  if ((refused.amount ?? 0) > 0 && refused.processorPaymentIntentId) {
    await req.payload.jobs.queue({ task: 'refundLicenseChange', input: { changeId: change.id }, req })
  }
  await track(req, {
    name: 'license_change_refused',
    userId: Number(facts.metadata.user_id) || null,
    email: facts.email ?? null,
    properties: { kind: change.kind, reason, amount: refused.amount ?? 0, currency: refused.currency },
    sourceId: `license_change:${change.id}`,
  })
  return { change: refused, decided: 'refused' }
}

/**
 * Undo an applied change whose payment was refunded in full or lost to a chargeback: the license gets
 * back the plan and window it had, unless something since (another change, staff) moved it on.
 */
const reverse = async (req: PayloadRequest, change: LicenseChange): Promise<LicenseChange> => {
  const licenseId = relationId(change.license)
  const license = licenseId === null ? null : await lockLicense(req, licenseId)
  const before = change.licenseBefore as Snapshot | null
  const after = change.licenseAfter as Snapshot | null
  if (license && before && after) {
    const now = snapshotOf(license)
    const stillHeld =
      now.plan === after.plan &&
      now.updatePolicy === after.updatePolicy &&
      now.updatesMajor === after.updatesMajor &&
      now.updatesUntil === after.updatesUntil
    if (stillHeld) {
      await licenseChanged(req, license.id, {
        plan: before.plan ?? undefined,
        updatePolicy: before.updatePolicy,
        updatesMajor: before.updatesMajor,
        updatesUntil: before.updatesUntil,
        upgradedAt: before.upgradedAt,
      })
      await recordAudit(req, {
        action: change.kind === 'upgrade' ? 'license.upgrade_reversed' : 'license.renewal_reversed',
        targetCollection: 'licenses',
        targetId: String(license.id),
        reason: 'The payment was refunded in full or lost to a chargeback',
        before: now,
        after: before,
      })
    } else {
      req.payload.logger.warn({
        msg: 'license change reversed on the payment only: the license moved on since',
        changeId: change.id,
      })
    }
  }
  await track(req, {
    name: 'license_change_reversed',
    userId: relationId(change.user),
    properties: { kind: change.kind, licenseId, amount: change.amount ?? 0, currency: change.currency },
    sourceId: `license_change:${change.id}`,
  })
  return req.payload.update({
    collection: 'license_changes',
    id: change.id,
    data: { status: 'reversed', reversedAt: new Date().toISOString() },
    req,
    overrideAccess: true,
    depth: 0,
  })
}

/**
 * An upgrade whose credit covers the whole price: applied at once, under the license's lock, with a
 * change row of amount 0 (no payment, so nothing to refund or reverse).
 */
export const upgradeWithoutPayment = async (
  req: PayloadRequest,
  {
    licenseId,
    userId,
    fromPlan,
    toPlan,
    credit,
    currency,
  }: { licenseId: number; userId: number; fromPlan: Plan; toPlan: Plan; credit: number; currency: string },
): Promise<LicenseChange> => {
  const license = await lockLicense(req, licenseId)
  if (
    !license ||
    relationId(license.user) !== userId ||
    license.status !== 'active' ||
    relationId(license.plan) !== fromPlan.id
  ) {
    throw new ServiceError(409, 'upgrade_not_offered', 'Your license changed meanwhile: reload the page and try again.')
  }
  const change = await req.payload.create({
    collection: 'license_changes',
    data: {
      kind: 'upgrade',
      status: 'pending',
      license: license.id,
      user: userId,
      amount: 0,
      taxAmount: 0,
      credit,
      currency,
    },
    req,
    overrideAccess: true,
    depth: 0,
  })
  const now = new Date()
  const window = await planWindow(req, toPlan.id, now)
  const { change: applied } = await applyChange(
    req,
    change,
    license,
    { plan: toPlan.id, ...windowFields(window), upgradedAt: now.toISOString() },
    { from: fromPlan, to: toPlan, now },
  )
  return applied
}

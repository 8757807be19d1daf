import type { PayloadRequest } from 'payload'

import type { License, OneTimePurchase, UserSubscription } from '../payload-types'
import { generateLicenseKey } from './keys'
import { type LicenseFacts, licenseStateFor, type LicenseStatus, withChangeDisputes } from './status'
import { insertLicense, lockLicenseOf, planWindow, windowFields } from './store'
import { relationId as relId } from '../db/relations'

export type LicenseSource =
  | { collection: 'one_time_purchases'; doc: OneTimePurchase }
  | { collection: 'user_subscriptions'; doc: UserSubscription }

const factsOf = (source: LicenseSource): LicenseFacts =>
  source.collection === 'one_time_purchases'
    ? {
        kind: 'one_time_purchase',
        status: source.doc.status,
        amount: source.doc.amount ?? 0,
        refundedAmount: source.doc.refundedAmount ?? 0,
        disputeStatus: source.doc.disputeStatus ?? 'none',
      }
    : {
        kind: 'subscription',
        status: source.doc.status,
        currentPeriodEnd: source.doc.currentPeriodEnd ? new Date(source.doc.currentPeriodEnd) : null,
        disputeStatus: source.doc.disputeStatus ?? 'none',
      }

/** The facts behind an existing license, read from its purchase or subscription. */
export const factsForLicense = async (req: PayloadRequest, license: License): Promise<LicenseFacts | null> => {
  const purchaseId = relId(license.oneTimePurchase)
  if (purchaseId !== null) {
    const doc = await req.payload.findByID({ collection: 'one_time_purchases', id: purchaseId, depth: 0, req })
    return factsOf({ collection: 'one_time_purchases', doc })
  }
  const subscriptionId = relId(license.subscription)
  if (subscriptionId !== null) {
    const doc = await req.payload.findByID({ collection: 'user_subscriptions', id: subscriptionId, depth: 0, req })
    return factsOf({ collection: 'user_subscriptions', doc })
  }
  return null
}

/** The seats a purchase or subscription pays for (its quantity). */
const seatsOfSource = (source: LicenseSource): number => Math.max(1, Number(source.doc.quantity ?? 1))

/** `previousSeats`: the seats the license covered before this sync (null for a new one). */
export type SyncResult = {
  license: License | null
  created: boolean
  previousStatus: LicenseStatus | null
  previousSeats: number | null
}

/**
 * Make the license of a purchase or subscription match its facts: create it when one is first due,
 * update status, validity and plan after (a plan change in the portal moves the license to the new
 * plan). A staff override wins over the status until staff clear it. Runs inside the caller's
 * transaction (`req`).
 */
export const syncLicense = async (
  req: PayloadRequest,
  source: LicenseSource,
  graceDays: number,
  at = new Date(),
  options: { isNew?: boolean } = {},
): Promise<SyncResult> => {
  const { payload } = req
  // Read the license row locked: a staff override committed meanwhile must be read, not overwritten
  // by a status computed from the row as it was. A source inserted in this transaction has none.
  const locked = options.isNew ? null : await lockLicenseOf(req, source.collection, source.doc.id)
  const existing = locked?.license ?? null
  const state = withChangeDisputes(licenseStateFor(factsOf(source), graceDays, at), locked?.changeDisputeOpen ?? false)
  const now = at.toISOString()
  const owner = { user: relId(source.doc.user), email: source.doc.email ?? null }
  const revocation = (status: LicenseStatus, reason: string | null) =>
    status === 'revoked'
      ? { revokedAt: now, revokedReason: reason }
      : { revokedAt: null, revokedReason: null, revokedBy: null }

  if (!existing) {
    if (!state) return { license: null, created: false, previousStatus: null, previousSeats: null }
    const plan = relId(source.doc.plan)
    if (plan === null) throw new Error(`${source.collection} ${source.doc.id} has no plan: cannot grant a license`)
    const { revokedAt, revokedReason } = revocation(state.status, state.reason)
    const license = await insertLicense(req, {
      key: generateLicenseKey(),
      ...owner,
      plan,
      source: source.collection === 'one_time_purchases' ? 'one_time_purchase' : 'subscription',
      oneTimePurchase: source.collection === 'one_time_purchases' ? source.doc.id : null,
      subscription: source.collection === 'user_subscriptions' ? source.doc.id : null,
      status: state.status,
      validUntil: state.validUntil?.toISOString() ?? null,
      grantedAt: now,
      revokedAt,
      revokedReason,
      seats: seatsOfSource(source),
    })
    return { license, created: true, previousStatus: null, previousSeats: null }
  }

  const status: LicenseStatus =
    existing.override === 'revoked'
      ? 'revoked'
      : existing.override === 'active'
        ? 'active'
        : (state?.status ?? 'expired')
  const validUntil =
    existing.override === 'none' || !existing.override
      ? (state?.validUntil?.toISOString() ?? null)
      : (existing.validUntil ?? null)
  const changes: Partial<License> = {}
  if (status !== existing.status)
    Object.assign(changes, { status }, existing.override === 'none' ? revocation(status, state?.reason ?? null) : {})
  if ((validUntil ?? null) !== (existing.validUntil ?? null)) changes.validUntil = validUntil
  if (owner.user !== null && relId(existing.user) === null) changes.user = owner.user
  // A subscription's quantity changed in the portal changes its seats; when it drops below the seats in
  // use, the caller ends the newest ones (src/teams/seats.ts, endSeatsBeyondPaid).
  if (seatsOfSource(source) !== (existing.seats ?? 1)) changes.seats = seatsOfSource(source)
  // A subscription changed in the portal moves its license to the new plan, and its window with it. A
  // one-time purchase's plan never changes: its license moves only by a paid upgrade (license_changes),
  // which a late event of the original purchase must not undo.
  const plan = relId(source.doc.plan)
  if (source.collection === 'user_subscriptions' && plan !== null && plan !== relId(existing.plan)) {
    Object.assign(changes, { plan }, windowFields(await planWindow(req, plan, at)))
  }
  const previousSeats = existing.seats ?? 1
  if (Object.keys(changes).length === 0)
    return { license: existing, created: false, previousStatus: existing.status, previousSeats }
  const license = await payload.update({
    collection: 'licenses',
    id: existing.id,
    data: changes,
    req,
    overrideAccess: true,
    depth: 0,
  })
  return { license, created: false, previousStatus: existing.status, previousSeats }
}

import type { SubscriptionStatus } from './subscription-statuses'
import { ServiceError } from '../http/errors'

export const LICENSE_STATUSES = ['active', 'suspended', 'revoked', 'expired'] as const
export type LicenseStatus = (typeof LICENSE_STATUSES)[number]

export type DisputeState = 'none' | 'open' | 'won' | 'lost'

const DISPUTE_RANK: Record<DisputeState, number> = { none: 0, open: 1, won: 2, lost: 2 }

/** A dispute only moves forward (none, open, then closed won or lost), so an older read cannot reopen it. */
export const laterDisputeState = (current: DisputeState, incoming: DisputeState): DisputeState =>
  DISPUTE_RANK[incoming] >= DISPUTE_RANK[current] ? incoming : current

const WORST_DISPUTE: DisputeState[] = ['lost', 'open', 'won', 'none']

/** The state that decides a subscription's license when several of its payments were disputed. */
export const worstDisputeState = (states: DisputeState[]): DisputeState =>
  WORST_DISPUTE.find((state) => states.includes(state)) ?? 'none'

/** What the processor told us about the purchase a license comes from. */
export type LicenseFacts =
  | {
      kind: 'one_time_purchase'
      status: 'pending' | 'succeeded' | 'failed'
      amount: number
      refundedAmount: number
      disputeStatus: DisputeState
    }
  | {
      kind: 'subscription'
      status: SubscriptionStatus
      currentPeriodEnd: Date | null
      disputeStatus: DisputeState
    }

export type LicenseState = { status: LicenseStatus; validUntil: Date | null; reason: string | null }

const DAY_MS = 24 * 60 * 60 * 1000

/**
 * The license a purchase earns, from facts only, so that events applied in any order converge.
 * Returns null while no license is due yet (unpaid, incomplete). Every subscription status is
 * mapped explicitly: an unknown one would fall to the compiler, never to "active".
 *
 * Chargebacks decide before anything else (open suspends, lost revokes). A refunded subscription
 * invoice does not: the subscription's own status does (the merchant cancels it to end access), and
 * a paid period whose grace has run out without news (no renewal arrived) has lapsed.
 */
export const licenseStateFor = (
  facts: LicenseFacts,
  graceDays: number,
  now: Date = new Date(),
): LicenseState | null => {
  if (facts.disputeStatus === 'lost') return { status: 'revoked', validUntil: null, reason: 'dispute_lost' }
  if (facts.kind === 'one_time_purchase') {
    if (facts.status !== 'succeeded') return null
    if (facts.amount > 0 && facts.refundedAmount >= facts.amount) {
      return { status: 'revoked', validUntil: null, reason: 'refunded' }
    }
    if (facts.disputeStatus === 'open') return { status: 'suspended', validUntil: null, reason: 'dispute_open' }
    return { status: 'active', validUntil: null, reason: null }
  }
  if (facts.disputeStatus === 'open') return { status: 'suspended', validUntil: null, reason: 'dispute_open' }
  const graceEnd = facts.currentPeriodEnd ? new Date(facts.currentPeriodEnd.getTime() + graceDays * DAY_MS) : null
  switch (facts.status) {
    case 'active':
    case 'trialing':
    case 'past_due':
      if (graceEnd && graceEnd.getTime() <= now.getTime())
        return { status: 'expired', validUntil: graceEnd, reason: 'lapsed' }
      return { status: 'active', validUntil: graceEnd, reason: facts.status === 'past_due' ? 'past_due' : null }
    case 'canceled':
    case 'unpaid':
    case 'incomplete_expired':
    case 'paused':
      return { status: 'expired', validUntil: null, reason: facts.status }
    case 'incomplete':
      return null
    default: {
      const unmapped: never = facts
      throw new Error(`unmapped subscription status in ${JSON.stringify(unmapped)}`)
    }
  }
}

/**
 * An open chargeback on a payment for one of the license's upgrades or renewals suspends it as one on
 * the purchase does, until it closes (a lost one reverses the change, src/billing/license-changes.ts).
 * It never lifts what the purchase's own facts say: a revoked or expired license stays so.
 */
export const withChangeDisputes = (state: LicenseState | null, changeDisputeOpen: boolean): LicenseState | null =>
  state && changeDisputeOpen && state.status === 'active'
    ? { status: 'suspended', validUntil: state.validUntil, reason: 'dispute_open' }
    : state

/** Whether a license grants access right now. */
export const isLicenseUsable = (license: { status?: string | null; validUntil?: string | null }, now = new Date()) =>
  license.status === 'active' && (!license.validUntil || new Date(license.validUntil).getTime() > now.getTime())

/** 404 for a license the caller does not own: another customer's answers as one that does not exist. */
export const licenseNotYours = () => new ServiceError(404, 'license_not_found', 'You have no license with this id.')

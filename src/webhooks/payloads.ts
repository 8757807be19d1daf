import type { PayloadRequest } from 'payload'

import { relationId } from '../db/relations'
import type { License, LicenseActivation, LicenseSeat, PaymentHistory, Plan, UserSubscription } from '../payload-types'

/**
 * What each event's `data` holds (docs/WEBHOOKS.md shows an example of each). Customers are named by
 * id and email; no payload carries a license key, a token, a secret or a password (a license's key is
 * a credential: only its last four characters go out, for support to match a customer's message).
 */

type PlanRef = { id: number; slug: string; name: string } | null
type Customer = { id: number | null; email: string | null }

/** The plan as receivers know it; one read in the caller's transaction (none when it came populated). */
const planRef = async (req: PayloadRequest, plan: number | Plan | null | undefined): Promise<PlanRef> => {
  if (plan === null || plan === undefined) return null
  const doc =
    typeof plan === 'object'
      ? plan
      : await req.payload.findByID({ collection: 'plans', id: plan, depth: 0, req, disableErrors: true })
  return doc ? { id: doc.id, slug: doc.slug, name: doc.name } : null
}

const customerOf = (row: { user?: unknown; email?: string | null }): Customer => ({
  id: relationId(row.user),
  email: row.email ?? null,
})

export const LICENSE_FIELDS = [
  'status',
  'plan',
  'validUntil',
  'seats',
  'updatePolicy',
  'updatesMajor',
  'updatesUntil',
  'user',
] as const

export const licenseData = async (req: PayloadRequest, license: License) => ({
  id: license.id,
  keyLast4: license.key.slice(-4),
  status: license.status,
  plan: await planRef(req, license.plan),
  source: license.source,
  customer: customerOf(license),
  seats: license.seats ?? 1,
  validUntil: license.validUntil ?? null,
  updatePolicy: license.updatePolicy ?? null,
  updatesMajor: license.updatesMajor ?? null,
  updatesUntil: license.updatesUntil ?? null,
  grantedAt: license.grantedAt ?? null,
  revokedAt: license.revokedAt ?? null,
  revokedReason: license.revokedReason ?? null,
})

export const orderData = async (req: PayloadRequest, payment: PaymentHistory) => ({
  id: payment.id,
  processorPaymentId: payment.processorPaymentId,
  type: payment.paymentType,
  status: payment.status,
  amount: payment.amount,
  taxAmount: payment.taxAmount ?? null,
  currency: payment.currency,
  refundedAmount: payment.refundedAmount ?? 0,
  plan: await planRef(req, payment.plan),
  subscriptionId: relationId(payment.subscription),
  customer: customerOf(payment),
  invoiceNumber: payment.invoiceNumber ?? null,
  paidAt: payment.paidAt ?? null,
})

export const subscriptionData = async (req: PayloadRequest, subscription: UserSubscription) => ({
  id: subscription.id,
  processorSubscriptionId: subscription.processorSubscriptionId,
  status: subscription.status,
  plan: await planRef(req, subscription.plan),
  billingCycle: subscription.billingCycle ?? null,
  quantity: subscription.quantity ?? 1,
  currentPeriodEnd: subscription.currentPeriodEnd ?? null,
  cancelAtPeriodEnd: Boolean(subscription.cancelAtPeriodEnd),
  canceledAt: subscription.canceledAt ?? null,
  customer: customerOf(subscription),
})

export type SeatRow = Pick<LicenseSeat, 'id' | 'email' | 'status'> & {
  licenseId: number
  memberId: number | null
  claimedAt: string | null
  revokedAt: string | null
}

export const seatData = (
  seat: SeatRow,
  extra: { revokedBy?: 'owner' | 'staff' | 'billing' | 'account_deletion' } = {},
) => ({
  id: seat.id,
  licenseId: seat.licenseId,
  email: seat.email,
  status: seat.status,
  memberId: seat.memberId,
  claimedAt: seat.claimedAt,
  revokedAt: seat.revokedAt,
  ...extra,
})

export type ActivationRow = Pick<LicenseActivation, 'id' | 'fingerprint' | 'label'> & {
  licenseId: number
  createdAt: string
  deactivatedAt: string | null
  deactivatedBy: LicenseActivation['deactivatedBy']
}

export const activationData = (activation: ActivationRow) => ({
  id: activation.id,
  licenseId: activation.licenseId,
  fingerprint: activation.fingerprint,
  label: activation.label ?? null,
  createdAt: activation.createdAt,
  deactivatedAt: activation.deactivatedAt,
  deactivatedBy: activation.deactivatedBy ?? null,
})

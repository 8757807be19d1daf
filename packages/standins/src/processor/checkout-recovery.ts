import type Stripe from 'stripe'

import { openCheckoutSession } from './checkout-sessions'
import type { Processor } from './context'
import { invalidRequest } from './errors'
import { daysFrom, newId, nowSeconds } from './ids'
import { buildLineItem, type SessionDiscount } from './objects/checkout'
import { discountOn } from './objects/coupon'
import { refreshCouponValidity, requireCheckoutDetails, requireSession, type RecoveryLink } from './state'

/** For security, Stripe keeps a recovery URL usable for 30 days after its session expired. */
const RECOVERY_DAYS = 30

/**
 * On expiry with `after_expiration[recovery][enabled]`: the URL that makes a copy of the session,
 * `${publicUrl}/r/<token>`, usable for 30 days.
 */
export const addRecoveryUrl = (processor: Processor, session: Stripe.Checkout.Session): void => {
  const recovery = session.after_expiration?.recovery
  if (!recovery?.enabled) return
  const token = newId(processor.livemode ? 'live' : 'test')
  processor.state.recoveries.set(token, { sessionId: session.id, copyId: null })
  recovery.url = `${processor.publicUrl}/r/${token}`
  recovery.expires_at = daysFrom(nowSeconds(), RECOVERY_DAYS)
}

const idOf = (field: string | { id: string } | null): string | null =>
  field === null || typeof field === 'string' ? field : field.id

/** The expired session's coupon, while it can still be redeemed and the copy takes no promotion codes instead. */
const copiedDiscount = (
  processor: Processor,
  expired: Stripe.Checkout.Session,
  lineItems: Stripe.LineItem[],
  allowPromotionCodes: boolean,
): SessionDiscount | null => {
  const couponId = idOf(expired.discounts?.[0]?.coupon ?? null)
  const coupon = couponId === null || allowPromotionCodes ? undefined : processor.state.coupons.get(couponId)
  if (!coupon || !refreshCouponValidity(coupon).valid) return null
  const subtotal = lineItems.reduce((sum, item) => sum + item.amount_subtotal, 0)
  return { coupon: coupon.id, amount: discountOn(coupon, subtotal) }
}

/**
 * A new open session that is a copy of the expired one: its line items, mode, customer, metadata, URLs
 * and settings, promotion codes as its recovery allows them, 24 hours to pay, and `recovered_from`.
 */
const copySession = (processor: Processor, expired: Stripe.Checkout.Session): Stripe.Checkout.Session => {
  const details = requireCheckoutDetails(processor.state, expired.id)
  const recovery = expired.after_expiration?.recovery ?? null
  const allowPromotionCodes = recovery?.allow_promotion_codes ?? false
  const lineItems = details.lineItems.map((item) => {
    if (!item.price) throw new Error(`line item ${item.id} has no price`)
    return buildLineItem(item.price, item.quantity ?? 1, item.description ?? item.price.id)
  })
  const created = nowSeconds()
  return openCheckoutSession(
    processor,
    {
      mode: expired.mode === 'subscription' ? 'subscription' : 'payment',
      lineItems,
      discount: copiedDiscount(processor, expired, lineItems, allowPromotionCodes),
      customer: idOf(expired.customer),
      customerEmail: expired.customer_email,
      customerCreation: expired.customer_creation,
      clientReferenceId: expired.client_reference_id,
      metadata: { ...expired.metadata },
      allowPromotionCodes,
      successUrl: expired.success_url ?? null,
      cancelUrl: expired.cancel_url ?? null,
      automaticTax: expired.automatic_tax.enabled,
      taxIdCollection: structuredClone(expired.tax_id_collection ?? { enabled: false, required: 'never' }),
      invoiceCreation: structuredClone(expired.invoice_creation),
      created,
      expiresAt: daysFrom(created, 1),
      afterExpiration: recovery && { recovery: { ...recovery, expires_at: null, url: null } },
      consentCollection: structuredClone(expired.consent_collection),
      recoveredFrom: expired.id,
    },
    {
      paymentIntentMetadata: { ...details.paymentIntentMetadata },
      subscriptionMetadata: { ...details.subscriptionMetadata },
      customerUpdate: { ...details.customerUpdate },
    },
  )
}

/** Where opening a recovery URL leads. */
export type RecoveryVisit =
  { outcome: 'open'; session: Stripe.Checkout.Session } | { outcome: 'complete' | 'unknown' | 'expired' }

const linkExpired = (processor: Processor, link: RecoveryLink): boolean => {
  const expiresAt = requireSession(processor.state, link.sessionId).after_expiration?.recovery?.expires_at ?? 0
  return nowSeconds() >= expiresAt
}

/**
 * `GET /r/<token>`: the copy the URL made while it is open (one copy, however often it is opened), a
 * new copy when there is none or it expired too, and none once it is complete or the URL's 30 days passed.
 */
export const visitRecoveryUrl = (processor: Processor, token: string): RecoveryVisit => {
  const link = processor.state.recoveries.get(token)
  if (!link) return { outcome: 'unknown' }
  if (linkExpired(processor, link)) return { outcome: 'expired' }
  const copy = link.copyId === null ? undefined : processor.state.sessions.get(link.copyId)
  if (copy?.status === 'complete') return { outcome: 'complete' }
  if (copy?.status === 'open') return { outcome: 'open', session: copy }
  const fresh = copySession(processor, requireSession(processor.state, link.sessionId))
  link.copyId = fresh.id
  return { outcome: 'open', session: fresh }
}

/** Test control: the session's recovery URL as it is after its 30 days (its `expires_at` becomes now). */
export const expireRecoveryUrl = (processor: Processor, sessionId: string): void => {
  const session = requireSession(processor.state, sessionId)
  const recovery = session.after_expiration?.recovery
  if (!recovery?.url || recovery.expires_at === null) {
    throw invalidRequest(
      `Checkout session ${session.id} has no recovery URL: it is ${session.status ?? 'closed'}, and a URL comes only with the expiry of a session with after_expiration[recovery][enabled].`,
      { param: 'session' },
    )
  }
  recovery.expires_at = Math.min(recovery.expires_at, nowSeconds())
}

import type { Payload } from 'payload'
import type Stripe from 'stripe'

import type { License, User } from '../payload-types'
import { idOf } from './processor'
import { billingRuntimeOf } from './runtime'

/** Checkout session ids as the processor makes them; anything else is not looked up. */
const SESSION_ID = /^cs_[A-Za-z0-9_]{1,200}$/

/** "j•••e@example.com": enough for a buyer to recognise their address, not enough to learn someone else's. */
export const maskEmail = (email: string): string => {
  const [local = '', domain = ''] = email.split('@')
  const shown = local.length <= 2 ? `${local.slice(0, 1)}•••` : `${local.slice(0, 1)}•••${local.slice(-1)}`
  return `${shown}@${domain}`
}

export type CheckoutView =
  | { kind: 'unknown' }
  | { kind: 'unpaid' }
  /** Paid, seen by its buyer: the license once the webhook has granted it (null while it is on its way). */
  | { kind: 'owner'; license: Pick<License, 'key' | 'status'> | null; planName: string | null }
  /** Paid by a signed-in account, seen signed out: sign in first. */
  | { kind: 'sign_in' }
  /** Paid anonymously, seen by someone not signed in with the checkout email: the masked address only. */
  | { kind: 'anonymous'; maskedEmail: string | null }
  /** Paid by another account than the one looking. */
  | { kind: 'other_account' }

/** The processor's copy of a checkout session (kept: ./kept-reads.ts), or null for an id that is malformed or unknown there. */
export const retrieveCheckoutSession = async (
  payload: Payload,
  sessionId: string,
): Promise<Stripe.Checkout.Session | null> => {
  if (!SESSION_ID.test(sessionId)) return null
  const { checkoutSessions } = billingRuntimeOf(payload).require()
  try {
    return await checkoutSessions.retrieve(sessionId)
  } catch (error) {
    if ((error as { statusCode?: number }).statusCode === 404) return null
    throw error
  }
}

const licenseFor = async (payload: Payload, session: Stripe.Checkout.Session) => {
  const find = async (where: Record<string, unknown>) =>
    (
      await payload.find({
        collection: 'licenses',
        where: where as never,
        limit: 1,
        depth: 1,
        pagination: false,
        overrideAccess: true,
      })
    ).docs[0] ?? null
  if (session.mode === 'subscription') {
    const subscriptionId = idOf(session.subscription)
    if (!subscriptionId) return null
    const subscription = (
      await payload.find({
        collection: 'user_subscriptions',
        where: { processorSubscriptionId: { equals: subscriptionId } },
        limit: 1,
        depth: 0,
        pagination: false,
        overrideAccess: true,
      })
    ).docs[0]
    return subscription ? find({ subscription: { equals: subscription.id } }) : null
  }
  const purchase = (
    await payload.find({
      collection: 'one_time_purchases',
      where: { processorCheckoutSessionId: { equals: session.id } },
      limit: 1,
      depth: 0,
      pagination: false,
      overrideAccess: true,
    })
  ).docs[0]
  return purchase ? find({ oneTimePurchase: { equals: purchase.id } }) : null
}

/**
 * What the success page may show `viewer` about a checkout: only its buyer sees the license (the
 * signed-in account named in its metadata, or the account signed in with its verified checkout
 * email); an anonymous purchase shows others the masked checkout email; another account sees nothing.
 */
export const checkoutView = async (
  payload: Payload,
  session: Stripe.Checkout.Session | null,
  viewer: User | null,
): Promise<CheckoutView> => {
  if (!session) return { kind: 'unknown' }
  const paid =
    session.status === 'complete' &&
    (session.payment_status === 'paid' || session.payment_status === 'no_payment_required')
  if (!paid) return { kind: 'unpaid' }
  const buyerId = Number(session.metadata?.user_id)
  const email = (session.customer_details?.email ?? session.customer_email ?? '').toLowerCase() || null
  const isBuyer =
    Number.isInteger(buyerId) && buyerId > 0
      ? viewer?.id === buyerId
      : Boolean(viewer && email && viewer.emailVerified && viewer.email === email)
  if (!isBuyer) {
    if (Number.isInteger(buyerId) && buyerId > 0) return viewer ? { kind: 'other_account' } : { kind: 'sign_in' }
    return viewer ? { kind: 'other_account' } : { kind: 'anonymous', maskedEmail: email ? maskEmail(email) : null }
  }
  const license = await licenseFor(payload, session)
  const plan = license && typeof license.plan === 'object' ? license.plan : null
  return {
    kind: 'owner',
    license: license ? { key: license.key, status: license.status } : null,
    planName: plan?.name ?? null,
  }
}

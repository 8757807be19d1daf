import type Stripe from 'stripe'

import { recordReferral } from '../../../affiliates/attribution'
import { track } from '../../../analytics/track'
import { recordRecoveredCheckout } from '../../../recovery/record'
import { idOf } from '../../processor'
import { defineHandler } from '../define'
import { licenseChangeOf } from '../../license-change-kinds'
import {
  applySubscription,
  type LoadedSubscription,
  loadSubscription,
  recordLicenseChangePayment,
  recordPurchase,
  seatsOf,
} from '../steps'

/** The tax the checkout charged (0 without automatic tax): only its session says it, not its payment intent. */
const taxOf = (session: Stripe.Checkout.Session): number => session.total_details?.amount_tax ?? 0

/**
 * A checkout finished (`completed`), or its delayed payment settled (`async_payment_succeeded|failed`):
 * a subscription checkout brings its subscription in; a one-time one records its purchase, with no
 * license before payment.
 */
export const checkoutSession = defineHandler(
  ['checkout.session.completed', 'checkout.session.async_payment_succeeded', 'checkout.session.async_payment_failed'],
  {
    load: async (
      processor,
      event,
    ): Promise<{ session: Stripe.Checkout.Session; subscription: LoadedSubscription | null }> => {
      const sent = event.data.object
      // A paid one-time checkout is final, and the event carries all its purchase needs (the price is in
      // the metadata our checkout wrote): no round trip to the processor. Anything else is read fresh.
      const paid = sent.payment_status === 'paid' || sent.payment_status === 'no_payment_required'
      if (sent.mode === 'payment' && paid && sent.metadata?.price_id) return { session: sent, subscription: null }
      const session = await processor.checkout.sessions.retrieve(sent.id, { expand: ['line_items'] })
      const subscriptionId = idOf(session.subscription)
      return { session, subscription: subscriptionId ? await loadSubscription(processor, subscriptionId) : null }
    },
    apply: async (context, { session, subscription }) => {
      const email = session.customer_details?.email ?? session.customer_email ?? null
      // Reopened from an abandoned checkout's recovery link: counted as recovered once it is paid.
      await recordRecoveredCheckout(context.req, session)
      // Started from an affiliate's link: the referred sale, whose payments earn the commissions.
      await recordReferral(context.req, {
        metadata: session.metadata,
        kind: session.mode === 'subscription' ? 'subscription' : 'purchase',
        processorRef: session.mode === 'subscription' ? idOf(session.subscription) : idOf(session.payment_intent),
        checkoutSessionId: session.id,
      })
      if (session.mode === 'subscription') {
        if (!subscription) throw new Error(`checkout session ${session.id} has no subscription`)
        await applySubscription(context, subscription, { userId: session.metadata?.user_id, email })
        return
      }
      if (session.mode !== 'payment') return
      const { req, event } = context
      const paid = session.payment_status === 'paid' || session.payment_status === 'no_payment_required'
      const status = paid ? 'succeeded' : event.type === 'checkout.session.async_payment_failed' ? 'failed' : 'pending'
      const change = licenseChangeOf(session.metadata)
      if (change) {
        await recordLicenseChangePayment(context, {
          ref: change,
          metadata: session.metadata ?? {},
          paymentIntentId: idOf(session.payment_intent),
          checkoutSessionId: session.id,
          amount: session.amount_total,
          taxAmount: taxOf(session),
          currency: session.currency,
          status,
          email,
        })
        return
      }
      const priceId = session.line_items?.data[0]?.price?.id ?? session.metadata?.price_id ?? null
      const { buyer } = await recordPurchase(context, {
        paymentIntentId: idOf(session.payment_intent) ?? session.id,
        userId: session.metadata?.user_id,
        checkoutSessionId: session.id,
        customerId: idOf(session.customer),
        priceId,
        quantity: seatsOf(session.metadata),
        amount: session.amount_total,
        taxAmount: taxOf(session),
        currency: session.currency,
        status,
        email,
      })
      if (status === 'failed') {
        await track(req, {
          name: 'payment_failed',
          userId: buyer?.id ?? null,
          email,
          properties: { checkoutSessionId: session.id },
          sourceId: event.id,
        })
      }
    },
  },
)

import type { PayloadRequest } from 'payload'
import type Stripe from 'stripe'

import { track } from '../../analytics/track'
import { lockKey } from '../../db/transaction'
import { type DisputeState, laterDisputeState } from '../../licensing/status'
import type { UserSubscription } from '../../payload-types'
import { planForPrice, rememberCustomer, resolveBuyer } from '../store'
import { idOf } from '../processor'
import { applyPurchaseFacts, applySubscriptionChargebacks, applySubscriptionFacts, type BillingSettings } from '../purchases'
import { isSubscriptionStatus } from '../statuses'
import { relationId } from '../../db/relations'

export type HandlerContext = { req: PayloadRequest; event: Stripe.Event; settings: BillingSettings }

/**
 * One handler per event type. `load` reads the current objects from the processor before the
 * transaction opens (the event's copy may be stale, and no network call should hold a transaction);
 * `apply` writes every effect through `req`, inside the event's one transaction.
 */
export type EventHandler<Loaded> = {
  load: (processor: Stripe, event: Stripe.Event) => Promise<Loaded>
  apply: (context: HandlerContext, loaded: Loaded) => Promise<void>
}

const handler = <Loaded>(definition: EventHandler<Loaded>) => definition as EventHandler<unknown>

const firstPrice = (subscription: Stripe.Subscription) => subscription.items.data[0]?.price ?? null

const billingCycle = (price: Stripe.Price | null): 'monthly' | 'yearly' | null =>
  price?.recurring?.interval === 'year' ? 'yearly' : price?.recurring?.interval === 'month' ? 'monthly' : null

/** current_period_end moved to subscription items in newer API versions; read either. */
const periodEnd = (subscription: Stripe.Subscription): Date | null => {
  const item = subscription.items.data[0] as (Stripe.SubscriptionItem & { current_period_end?: number }) | undefined
  const seconds = item?.current_period_end ?? (subscription as unknown as { current_period_end?: number }).current_period_end
  return typeof seconds === 'number' ? new Date(seconds * 1000) : null
}

const customerEmail = async (processor: Stripe, customer: Stripe.Subscription['customer']): Promise<string | null> => {
  if (customer && typeof customer === 'object' && 'email' in customer) return customer.email ?? null
  const id = idOf(customer as string | { id: string } | null)
  if (!id) return null
  const loaded = await processor.customers.retrieve(id)
  return 'deleted' in loaded && loaded.deleted ? null : ((loaded as Stripe.Customer).email ?? null)
}

/** `fetchedAt`: when the read was sent; the state it returns is at least that recent. */
type LoadedSubscription = { subscription: Stripe.Subscription; email: string | null; fetchedAt: Date }

const loadSubscription = async (processor: Stripe, id: string): Promise<LoadedSubscription> => {
  const fetchedAt = new Date()
  const subscription = await processor.subscriptions.retrieve(id)
  return { subscription, email: await customerEmail(processor, subscription.customer), fetchedAt }
}

const applySubscription = async (
  { req, settings }: HandlerContext,
  { subscription, email, fetchedAt }: LoadedSubscription,
  hints: { userId?: string | null; email?: string | null } = {},
) => {
  await lockKey(req, subscription.id)
  if (!isSubscriptionStatus(subscription.status)) throw new Error(`unknown subscription status ${subscription.status}`)
  const price = firstPrice(subscription)
  const buyerEmail = hints.email ?? email
  const buyer = await resolveBuyer(req, hints.userId ?? subscription.metadata?.user_id, buyerEmail)
  await rememberCustomer(req, buyer, idOf(subscription.customer))
  return applySubscriptionFacts(
    req,
    {
      subscriptionId: subscription.id,
      customerId: idOf(subscription.customer),
      priceId: price?.id ?? null,
      status: subscription.status,
      billingCycle: billingCycle(price),
      currentPeriodEnd: periodEnd(subscription),
      cancelAtPeriodEnd: subscription.cancel_at_period_end,
      canceledAt: subscription.canceled_at ? new Date(subscription.canceled_at * 1000) : null,
      plan: (await planForPrice(req, price?.id)) ?? null,
      buyer,
      email: buyerEmail,
      snapshotAt: fetchedAt,
    },
    settings,
  )
}

type LoadedSession = { session: Stripe.Checkout.Session; subscription: LoadedSubscription | null }

const checkoutSession = handler<LoadedSession>({
  load: async (processor, event) => {
    const sent = event.data.object as Stripe.Checkout.Session
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
    if (session.mode === 'subscription') {
      if (!subscription) throw new Error(`checkout session ${session.id} has no subscription`)
      await applySubscription(context, subscription, { userId: session.metadata?.user_id, email })
      return
    }
    if (session.mode !== 'payment') return
    const { req, event, settings } = context
    const paymentIntentId = idOf(session.payment_intent) ?? session.id
    await lockKey(req, paymentIntentId)
    const priceId = session.line_items?.data[0]?.price?.id ?? session.metadata?.price_id ?? null
    const paid = session.payment_status === 'paid' || session.payment_status === 'no_payment_required'
    const status = paid ? 'succeeded' : event.type === 'checkout.session.async_payment_failed' ? 'failed' : 'pending'
    const buyer = await resolveBuyer(req, session.metadata?.user_id, email)
    await rememberCustomer(req, buyer, idOf(session.customer))
    await applyPurchaseFacts(
      req,
      {
        paymentIntentId,
        checkoutSessionId: session.id,
        customerId: idOf(session.customer),
        priceId,
        amount: session.amount_total,
        currency: session.currency,
        status,
        plan: await planForPrice(req, priceId),
        buyer,
        email,
      },
      settings,
    )
    if (status === 'failed') {
      await track(req, { name: 'payment_failed', userId: buyer?.id ?? null, email, properties: { checkoutSessionId: session.id }, sourceId: event.id })
    }
  },
})

const subscriptionChanged = handler<LoadedSubscription>({
  load: (processor, event) => loadSubscription(processor, (event.data.object as Stripe.Subscription).id),
  apply: async (context, loaded) => {
    const { previous, subscription } = await applySubscription(context, loaded)
    if (context.event.type === 'customer.subscription.updated' && previous) {
      await track(context.req, {
        name: 'subscription_updated',
        userId: relationId(subscription.user),
        email: subscription.email,
        properties: { status: subscription.status, cancelAtPeriodEnd: subscription.cancelAtPeriodEnd },
        sourceId: context.event.id,
      })
    }
  },
})

const invoiceSubscriptionId = (invoice: Stripe.Invoice): string | null => {
  const parent = (invoice as unknown as { parent?: { subscription_details?: { subscription?: string | { id: string } } } }).parent
  return idOf(parent?.subscription_details?.subscription ?? (invoice as unknown as { subscription?: string | null }).subscription ?? null)
}

type LoadedInvoice = { invoice: Stripe.Invoice; subscription: LoadedSubscription | null }

/** What a charge's refund or dispute changes on the payment it belongs to. */
type ChargeChanges = { refundedAmount?: number; disputeStatus?: DisputeState }

/**
 * The payment_history row of an invoice, created or brought up to date: amounts and status from the
 * invoice, refunds and disputes from its charge. A paid invoice stays paid and a refund never shrinks,
 * whatever order the events arrive in.
 */
const recordInvoicePayment = async (
  { req, event }: HandlerContext,
  invoice: Stripe.Invoice,
  owner: UserSubscription | null,
  facts: { succeeded: boolean } & ChargeChanges,
) => {
  await lockKey(req, invoice.id ?? event.id)
  const existing = (
    await req.payload.find({ collection: 'payment_history', where: { processorPaymentId: { equals: invoice.id } }, limit: 1, pagination: false, depth: 0, req })
  ).docs[0]
  const succeeded = facts.succeeded || existing?.status === 'succeeded'
  const data = {
    user: relationId(owner?.user) ?? relationId(existing?.user),
    email: owner?.email ?? existing?.email ?? invoice.customer_email ?? null,
    subscription: owner?.id ?? relationId(existing?.subscription),
    amount: facts.succeeded ? invoice.amount_paid : (existing?.amount ?? invoice.amount_due),
    currency: invoice.currency,
    paymentType: owner || invoiceSubscriptionId(invoice) ? ('recurring' as const) : ('one_time' as const),
    status: succeeded ? ('succeeded' as const) : ('failed' as const),
    invoiceUrl: invoice.hosted_invoice_url ?? null,
    paidAt:
      facts.succeeded && !existing?.paidAt
        ? new Date((invoice.status_transitions?.paid_at ?? event.created) * 1000).toISOString()
        : (existing?.paidAt ?? null),
    refundedAmount: Math.max(facts.refundedAmount ?? 0, existing?.refundedAmount ?? 0),
    disputeStatus: laterDisputeState(existing?.disputeStatus ?? 'none', facts.disputeStatus ?? 'none'),
  }
  return existing
    ? req.payload.update({ collection: 'payment_history', id: existing.id, data, req, overrideAccess: true, depth: 0 })
    : req.payload.create({ collection: 'payment_history', data: { ...data, processorPaymentId: invoice.id! }, req, overrideAccess: true, depth: 0 })
}

const invoicePayment = handler<LoadedInvoice>({
  load: async (processor, event) => {
    const invoice = event.data.object as Stripe.Invoice
    const subscriptionId = invoiceSubscriptionId(invoice)
    return { invoice, subscription: subscriptionId ? await loadSubscription(processor, subscriptionId) : null }
  },
  apply: async (context, { invoice, subscription }) => {
    const { req, event, settings } = context
    const succeeded = event.type === 'invoice.payment_succeeded'
    const synced = subscription ? await applySubscription(context, subscription) : null
    const owner = synced?.subscription ?? null
    const userId = owner ? relationId(owner.user) : null
    const email = owner?.email ?? invoice.customer_email ?? null
    if (!succeeded) {
      req.payload.logger.warn({ msg: 'invoice payment failed', invoice: invoice.id, subscription: subscription?.subscription.id, attempt: invoice.attempt_count })
    }
    const payment = await recordInvoicePayment(context, invoice, owner, { succeeded })
    // A newly paid invoice is now the latest: whether "the latest was refunded" still holds changes.
    if (owner) await applySubscriptionChargebacks(req, owner, settings)
    await track(req, {
      name: succeeded ? 'payment_succeeded' : 'payment_failed',
      userId,
      email,
      properties: { invoiceId: invoice.id, amount: payment.amount, currency: invoice.currency, attempt: invoice.attempt_count },
      sourceId: succeeded ? invoice.id! : event.id,
    })
  },
})

type LoadedPaymentIntent = { paymentIntent: Stripe.PaymentIntent; charge: Stripe.Charge | null }

const loadPaymentIntent = async (processor: Stripe, id: string): Promise<LoadedPaymentIntent> => {
  const paymentIntent = await processor.paymentIntents.retrieve(id)
  const chargeId = idOf(paymentIntent.latest_charge)
  return { paymentIntent, charge: chargeId ? await processor.charges.retrieve(chargeId) : null }
}

/** One-time payments carry our checkout metadata; subscription payments are handled through invoices. */
const isOneTimePayment = (paymentIntent: Stripe.PaymentIntent) => Boolean(paymentIntent.metadata?.price_id)

const recordOneTimePayment = async (
  context: HandlerContext,
  { paymentIntent, charge }: LoadedPaymentIntent,
  disputeStatus?: DisputeState,
) => {
  const { req, settings } = context
  await lockKey(req, paymentIntent.id)
  const email = charge?.billing_details?.email ?? paymentIntent.receipt_email ?? null
  const buyer = await resolveBuyer(req, paymentIntent.metadata?.user_id, email)
  await rememberCustomer(req, buyer, idOf(paymentIntent.customer))
  const priceId = paymentIntent.metadata?.price_id ?? null
  const purchase = await applyPurchaseFacts(
    req,
    {
      paymentIntentId: paymentIntent.id,
      customerId: idOf(paymentIntent.customer),
      chargeId: charge?.id ?? null,
      priceId,
      amount: paymentIntent.amount_received || paymentIntent.amount,
      currency: paymentIntent.currency,
      status: paymentIntent.status === 'succeeded' ? 'succeeded' : undefined,
      refundedAmount: charge?.amount_refunded ?? 0,
      disputeStatus,
      plan: await planForPrice(req, priceId),
      buyer,
      email,
    },
    settings,
  )
  return { purchase, buyer, email }
}

const paymentIntentSucceeded = handler<LoadedPaymentIntent>({
  load: (processor, event) => loadPaymentIntent(processor, (event.data.object as Stripe.PaymentIntent).id),
  apply: async (context, loaded) => {
    if (!isOneTimePayment(loaded.paymentIntent)) return
    const { purchase } = await recordOneTimePayment(context, loaded)
    const { req } = context
    const existing = (
      await req.payload.find({ collection: 'payment_history', where: { processorPaymentId: { equals: loaded.paymentIntent.id } }, limit: 1, pagination: false, depth: 0, req })
    ).docs[0]
    if (!existing) {
      await req.payload.create({
        collection: 'payment_history',
        data: {
          processorPaymentId: loaded.paymentIntent.id,
          user: relationId(purchase.user),
          email: purchase.email,
          amount: purchase.amount ?? loaded.paymentIntent.amount,
          currency: loaded.paymentIntent.currency,
          paymentType: 'one_time',
          status: 'succeeded',
          refundedAmount: purchase.refundedAmount ?? 0,
          disputeStatus: purchase.disputeStatus ?? 'none',
          invoiceUrl: loaded.charge?.receipt_url ?? null,
          paidAt: new Date(loaded.paymentIntent.created * 1000).toISOString(),
        },
        req,
        overrideAccess: true,
        depth: 0,
      })
    }
    await track(req, {
      name: 'payment_succeeded',
      userId: relationId(purchase.user),
      email: purchase.email,
      properties: { amount: purchase.amount, currency: purchase.currency },
      sourceId: loaded.paymentIntent.id,
    })
  },
})

/** A charge of a subscription invoice, with the invoice and the subscription it paid. */
type LoadedInvoiceCharge = { charge: Stripe.Charge; invoice: Stripe.Invoice; subscription: LoadedSubscription }

/** What paid for a charge: a one-time purchase, or a subscription's invoice (found through its invoice payment). */
type LoadedCharge = { oneTime: LoadedPaymentIntent } | { invoice: LoadedInvoiceCharge } | null

const loadChargeOwner = async (processor: Stripe, charge: Stripe.Charge): Promise<LoadedCharge> => {
  const paymentIntentId = idOf(charge.payment_intent)
  if (!paymentIntentId) return null
  const loaded = await loadPaymentIntent(processor, paymentIntentId)
  if (isOneTimePayment(loaded.paymentIntent)) return { oneTime: { ...loaded, charge } }
  const payments = await processor.invoicePayments.list({ payment: { type: 'payment_intent', payment_intent: paymentIntentId }, limit: 1 })
  const invoiceId = idOf(payments.data[0]?.invoice as string | { id: string } | undefined)
  if (!invoiceId) return null
  const invoice = await processor.invoices.retrieve(invoiceId)
  const subscriptionId = invoiceSubscriptionId(invoice)
  if (!subscriptionId) return null
  return { invoice: { charge, invoice, subscription: await loadSubscription(processor, subscriptionId) } }
}

/**
 * A refund or dispute on a subscription invoice's charge: recorded on the invoice's payment, then the
 * subscription's chargeback state (the worst dispute over all its invoices) decides its license.
 */
const applyInvoiceCharge = async (context: HandlerContext, { charge, invoice, subscription }: LoadedInvoiceCharge, changes: ChargeChanges) => {
  const { subscription: owner } = await applySubscription(context, subscription)
  const payment = await recordInvoicePayment(context, invoice, owner, { succeeded: charge.paid && charge.status === 'succeeded', ...changes })
  const updated = await applySubscriptionChargebacks(context.req, owner, context.settings)
  return { owner: updated, payment }
}

/**
 * A refund or dispute, applied to what the charge paid for (a one-time purchase or a subscription's
 * invoice): who owns it, and the amount and source ids its analytics event names.
 */
const applyChargeChanges = async (context: HandlerContext, loaded: NonNullable<LoadedCharge>, changes: ChargeChanges) => {
  if ('oneTime' in loaded) {
    const { purchase } = await recordOneTimePayment(context, loaded.oneTime, changes.disputeStatus)
    await recordChargeChanges(context.req, loaded.oneTime.paymentIntent.id, changes)
    return { owner: purchase as { user?: unknown; email?: string | null }, amount: purchase.amount, source: {} }
  }
  const { owner, payment } = await applyInvoiceCharge(context, loaded.invoice, changes)
  return { owner, amount: payment.amount, source: { invoiceId: loaded.invoice.invoice.id, subscriptionId: loaded.invoice.subscription.subscription.id } }
}

const chargeRefunded = handler<LoadedCharge>({
  load: async (processor, event) => loadChargeOwner(processor, await processor.charges.retrieve((event.data.object as Stripe.Charge).id)),
  apply: async (context, loaded) => {
    if (!loaded) return
    const charge = 'oneTime' in loaded ? loaded.oneTime.charge! : loaded.invoice.charge
    const { owner, amount, source } = await applyChargeChanges(context, loaded, { refundedAmount: charge.amount_refunded })
    await track(context.req, {
      name: charge.refunded ? 'refund_full' : 'refund_partial',
      userId: relationId(owner.user),
      email: owner.email ?? null,
      properties: { amountRefunded: charge.amount_refunded, amount, ...source },
      sourceId: `${charge.id}:${charge.amount_refunded}`,
    })
  },
})

const DISPUTE_STATES: Record<string, DisputeState> = {
  won: 'won',
  warning_closed: 'won',
  prevented: 'won',
  lost: 'lost',
}

type LoadedDispute = { dispute: Stripe.Dispute; payment: LoadedCharge }

const disputeChanged = handler<LoadedDispute>({
  load: async (processor, event) => {
    const dispute = await processor.disputes.retrieve((event.data.object as Stripe.Dispute).id)
    const charge = await processor.charges.retrieve(idOf(dispute.charge)!)
    return { dispute, payment: await loadChargeOwner(processor, charge) }
  },
  apply: async (context, { dispute, payment }) => {
    if (!payment) return
    const disputeStatus = DISPUTE_STATES[dispute.status] ?? 'open'
    const { owner, source } = await applyChargeChanges(context, payment, { disputeStatus })
    await track(context.req, {
      name: `dispute_${disputeStatus === 'open' ? 'opened' : disputeStatus}`,
      userId: relationId(owner.user),
      email: owner.email ?? null,
      properties: { disputeId: dispute.id, reason: dispute.reason, amount: dispute.amount, ...source },
      sourceId: dispute.id,
    })
  },
})

/** A one-time payment's refund or dispute, also on its payment_history row when that exists. */
const recordChargeChanges = async (req: PayloadRequest, paymentIntentId: string, changes: ChargeChanges) => {
  const existing = (
    await req.payload.find({ collection: 'payment_history', where: { processorPaymentId: { equals: paymentIntentId } }, limit: 1, pagination: false, depth: 0, req })
  ).docs[0]
  if (!existing) return
  await req.payload.update({
    collection: 'payment_history',
    id: existing.id,
    data: {
      refundedAmount: Math.max(changes.refundedAmount ?? 0, existing.refundedAmount ?? 0),
      disputeStatus: laterDisputeState(existing.disputeStatus ?? 'none', changes.disputeStatus ?? 'none'),
    },
    req,
    overrideAccess: true,
    depth: 0,
  })
}

export const EVENT_HANDLERS: Record<string, EventHandler<unknown>> = {
  'checkout.session.completed': checkoutSession,
  'checkout.session.async_payment_succeeded': checkoutSession,
  'checkout.session.async_payment_failed': checkoutSession,
  'customer.subscription.created': subscriptionChanged,
  'customer.subscription.updated': subscriptionChanged,
  'customer.subscription.deleted': subscriptionChanged,
  'invoice.payment_succeeded': invoicePayment,
  'invoice.payment_failed': invoicePayment,
  'payment_intent.succeeded': paymentIntentSucceeded,
  'charge.refunded': chargeRefunded,
  'charge.dispute.created': disputeChanged,
  'charge.dispute.closed': disputeChanged,
}

import type { PayloadRequest } from 'payload'
import type Stripe from 'stripe'

import { lockKey } from '../../db/transaction'
import { relationId } from '../../db/relations'
import { type DisputeState, laterDisputeState } from '../../licensing/status'
import type { PaymentHistory, UserSubscription } from '../../payload-types'
import { licenseChangeOf, type LicenseChangeRef } from '../license-change-kinds'
import { type ChangePaymentFacts, recordLicenseChange } from '../license-changes'
import { idOf } from '../processor'
import {
  applyPurchaseFacts,
  applySubscriptionChargebacks,
  applySubscriptionFacts,
  type BillingSettings,
  resyncLicense,
} from '../purchases'
import { isSubscriptionStatus } from '../../licensing/subscription-statuses'
import { type Buyer, findPurchase, lockAndReadPurchase, planForPrice, rememberCustomer, resolveBuyer } from '../store'

/**
 * The steps the event handlers (./events/) share, each written once: loading a subscription, the
 * buyer lookup, a one-time purchase, the payment_history row, and a charge's refund or dispute.
 * `load…` steps read the processor before the transaction; the others write through `req`, inside it.
 */

/** What a step writing inside the event's transaction is given. */
export type StepContext = { req: PayloadRequest; event: Stripe.Event; settings: BillingSettings }

// The buyer

/**
 * Whose payment this is (the metadata's user, else the verified owner of the email; null when
 * anonymous), remembering their processor customer for their next checkout and the portal.
 */
const findBuyer = async (
  req: PayloadRequest,
  who: {
    userId: string | null | undefined
    email: string | null | undefined
    customer: string | { id: string } | null | undefined
  },
): Promise<Buyer | null> => {
  const buyer = await resolveBuyer(req, who.userId, who.email)
  await rememberCustomer(req, buyer, idOf(who.customer))
  return buyer
}

// Subscriptions

const firstPrice = (subscription: Stripe.Subscription) => subscription.items.data[0]?.price ?? null

const billingCycle = (price: Stripe.Price | null): 'monthly' | 'yearly' | null =>
  price?.recurring?.interval === 'year' ? 'yearly' : price?.recurring?.interval === 'month' ? 'monthly' : null

/** current_period_end moved to subscription items in newer API versions; read either. */
const periodEnd = (subscription: Stripe.Subscription): Date | null => {
  const item = subscription.items.data[0]
  const seconds =
    item?.current_period_end ?? (subscription as unknown as { current_period_end?: number }).current_period_end
  return typeof seconds === 'number' ? new Date(seconds * 1000) : null
}

const customerEmail = async (processor: Stripe, customer: Stripe.Subscription['customer']): Promise<string | null> => {
  if (customer && typeof customer === 'object' && 'email' in customer) return customer.email ?? null
  const id = idOf(customer)
  if (!id) return null
  const loaded = await processor.customers.retrieve(id)
  return 'deleted' in loaded && loaded.deleted ? null : ((loaded as Stripe.Customer).email ?? null)
}

/** `fetchedAt`: when the read was sent; the state it returns is at least that recent. */
export type LoadedSubscription = { subscription: Stripe.Subscription; email: string | null; fetchedAt: Date }

export const loadSubscription = async (processor: Stripe, id: string): Promise<LoadedSubscription> => {
  const fetchedAt = new Date()
  const subscription = await processor.subscriptions.retrieve(id)
  return { subscription, email: await customerEmail(processor, subscription.customer), fetchedAt }
}

/** The subscription an invoice bills, wherever the API version puts it. */
const invoiceSubscriptionId = (invoice: Stripe.Invoice): string | null => {
  const parent = (
    invoice as unknown as { parent?: { subscription_details?: { subscription?: string | { id: string } } } }
  ).parent
  return idOf(
    parent?.subscription_details?.subscription ??
      (invoice as unknown as { subscription?: string | null }).subscription ??
      null,
  )
}

/** The current subscription an invoice bills, read from the processor; null for an invoice of no subscription. */
export const loadInvoiceSubscription = async (
  processor: Stripe,
  invoice: Stripe.Invoice,
): Promise<LoadedSubscription | null> => {
  const subscriptionId = invoiceSubscriptionId(invoice)
  return subscriptionId ? loadSubscription(processor, subscriptionId) : null
}

/** Bring the subscription's row and its license in line with the processor's read of it. */
export const applySubscription = async (
  { req, settings }: StepContext,
  { subscription, email, fetchedAt }: LoadedSubscription,
  hints: { userId?: string | null; email?: string | null } = {},
) => {
  await lockKey(req, subscription.id)
  if (!isSubscriptionStatus(subscription.status)) throw new Error(`unknown subscription status ${subscription.status}`)
  const price = firstPrice(subscription)
  const buyerEmail = hints.email ?? email
  const buyer = await findBuyer(req, {
    userId: hints.userId ?? subscription.metadata?.user_id,
    email: buyerEmail,
    customer: subscription.customer,
  })
  return applySubscriptionFacts(
    req,
    {
      subscriptionId: subscription.id,
      customerId: idOf(subscription.customer),
      priceId: price?.id ?? null,
      quantity: Math.max(1, subscription.items?.data?.[0]?.quantity ?? 1),
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

// One-time purchases

type PurchaseFacts = Parameters<typeof applyPurchaseFacts>[1]

/**
 * Record a one-time payment under its payment intent's lock: the buyer (from the metadata's user id or
 * the email), the plan that sells the price and the purchase so far are read in one statement after the
 * locks (src/billing/store.ts, lockAndReadPurchase).
 */
export const recordPurchase = async (
  { req, settings }: StepContext,
  { userId, ...facts }: Omit<PurchaseFacts, 'plan' | 'buyer'> & { userId: string | null | undefined },
) => {
  const { buyer, plan, existing } = await lockAndReadPurchase(req, {
    paymentIntentId: facts.paymentIntentId,
    userId,
    email: facts.email,
    priceId: facts.priceId,
  })
  await rememberCustomer(req, buyer, idOf(facts.customerId))
  const purchase = await applyPurchaseFacts(req, { ...facts, plan, buyer }, settings, existing)
  return { purchase, buyer }
}

export type LoadedPaymentIntent = { paymentIntent: Stripe.PaymentIntent; charge: Stripe.Charge | null }

export const loadPaymentIntent = async (processor: Stripe, id: string): Promise<LoadedPaymentIntent> => {
  const paymentIntent = await processor.paymentIntents.retrieve(id)
  const chargeId = idOf(paymentIntent.latest_charge)
  return { paymentIntent, charge: chargeId ? await processor.charges.retrieve(chargeId) : null }
}

/**
 * A payment for a change of an existing license (an upgrade or a renewal): the change recorded and
 * decided (src/billing/license-changes.ts), the license suspended while a chargeback on it is open,
 * then its payment_history row once it is paid, with its refunds and disputes. The payer is whoever the checkout was made for, checked to exist.
 */
export const recordLicenseChangePayment = async (
  { req, settings }: StepContext,
  facts: ChangePaymentFacts & { paidAt?: Date | null; receiptUrl?: string | null },
) => {
  const { change } = await recordLicenseChange(req, facts)
  // A chargeback on the change's payment suspends the license until it closes (lost: the change was
  // reversed above, and the license is active again on its earlier plan).
  const licenseId = relationId(change.license)
  if (licenseId !== null && (change.disputeStatus ?? 'none') !== 'none') await resyncLicense(req, licenseId, settings)
  const paymentId = change.processorPaymentIntentId
  if (change.status === 'pending' || change.status === 'failed' || !paymentId) return change
  const existing = await findPayment(req, paymentId)
  const payer =
    relationId(change.user) ??
    relationId(existing?.user) ??
    (await resolveBuyer(req, facts.metadata.user_id, null))?.id ??
    null
  await savePayment(req, paymentId, existing, {
    user: payer,
    email: existing?.email ?? facts.email?.toLowerCase() ?? null,
    subscription: null,
    amount: change.amount ?? existing?.amount ?? 0,
    currency: change.currency ?? existing?.currency ?? 'usd',
    paymentType: 'one_time',
    status: 'succeeded',
    plan: relationId(change.toPlan) ?? relationId(existing?.plan),
    // The invoice's page, once its event came; the receipt until then.
    invoiceUrl: existing?.processorInvoiceId ? existing.invoiceUrl : (facts.receiptUrl ?? existing?.invoiceUrl ?? null),
    paidAt: existing?.paidAt ?? (facts.paidAt ?? new Date()).toISOString(),
    ...chargeChangesOn(existing, {
      refundedAmount: change.refundedAmount ?? 0,
      disputeStatus: change.disputeStatus ?? 'none',
    }),
  })
  return change
}

/** The license change a payment intent pays for (from the checkout's metadata), or null. */
export const changeOfPaymentIntent = (paymentIntent: Stripe.PaymentIntent): LicenseChangeRef | null =>
  licenseChangeOf(paymentIntent.metadata)

/** A license change's payment as its payment intent and charge tell it. */
export const changeFactsOf = (
  ref: LicenseChangeRef,
  { paymentIntent, charge }: LoadedPaymentIntent,
  disputeStatus?: DisputeState,
): ChangePaymentFacts & { paidAt: Date | null; receiptUrl: string | null } => ({
  ref,
  metadata: paymentIntent.metadata ?? {},
  ...paymentFactsOf({ paymentIntent, charge }, disputeStatus),
  paidAt: paymentIntent.status === 'succeeded' ? new Date(paymentIntent.created * 1000) : null,
  receiptUrl: charge?.receipt_url ?? null,
})

/** What a payment intent and its charge say of a one-time payment, purchase or license change alike. */
const paymentFactsOf = ({ paymentIntent, charge }: LoadedPaymentIntent, disputeStatus: DisputeState | undefined) => ({
  paymentIntentId: paymentIntent.id,
  chargeId: charge?.id ?? null,
  amount: paymentIntent.amount_received || paymentIntent.amount,
  currency: paymentIntent.currency,
  status: paymentIntent.status === 'succeeded' ? ('succeeded' as const) : undefined,
  refundedAmount: charge?.amount_refunded ?? 0,
  disputeStatus,
  email: charge?.billing_details?.email ?? paymentIntent.receipt_email ?? null,
})

/** The seats a checkout sold, from the metadata the service wrote on it (1 when absent or unreadable). */
export const seatsOf = (metadata: Stripe.Metadata | null | undefined): number => {
  const seats = Number(metadata?.seats)
  return Number.isInteger(seats) && seats >= 1 && seats <= 100_000 ? seats : 1
}

/** One-time payments carry our checkout metadata; subscription payments are handled through invoices. */
export const isOneTimePayment = (paymentIntent: Stripe.PaymentIntent) => Boolean(paymentIntent.metadata?.price_id)

/** A one-time payment as its payment intent and charge tell it (a dispute's state is not on either). */
export const recordOneTimePayment = (
  context: StepContext,
  { paymentIntent, charge }: LoadedPaymentIntent,
  disputeStatus?: DisputeState,
) =>
  recordPurchase(context, {
    ...paymentFactsOf({ paymentIntent, charge }, disputeStatus),
    userId: paymentIntent.metadata?.user_id,
    customerId: idOf(paymentIntent.customer),
    priceId: paymentIntent.metadata?.price_id ?? null,
    quantity: seatsOf(paymentIntent.metadata),
  })

// Payment history

/** What a charge's refund or dispute changes on the payment it belongs to. */
export type ChargeChanges = { refundedAmount?: number; disputeStatus?: DisputeState }

type PaymentData = Omit<PaymentHistory, 'id' | 'processorPaymentId' | 'createdAt' | 'updatedAt'>

/** The payment_history row of a processor payment (an invoice, or a one-time payment intent), if any. */
export const findPayment = async (
  req: PayloadRequest,
  processorPaymentId: string,
): Promise<PaymentHistory | undefined> =>
  (
    await req.payload.find({
      collection: 'payment_history',
      where: { processorPaymentId: { equals: processorPaymentId } },
      limit: 1,
      pagination: false,
      depth: 0,
      req,
    })
  ).docs[0]

const updatePayment = (req: PayloadRequest, id: number, data: Partial<PaymentData>) =>
  req.payload.update({ collection: 'payment_history', id, data, req, overrideAccess: true, depth: 0 })

/** Write a payment_history row: the existing one brought up to date, or a new one. */
export const savePayment = (
  req: PayloadRequest,
  processorPaymentId: string,
  existing: PaymentHistory | undefined,
  data: PaymentData,
) =>
  existing
    ? updatePayment(req, existing.id, data)
    : req.payload.create({
        collection: 'payment_history',
        data: { ...data, processorPaymentId },
        req,
        overrideAccess: true,
        depth: 0,
      })

/** A refund never shrinks and a dispute's state only moves forward, whatever order the events arrive in. */
const chargeChangesOn = (
  existing: Pick<PaymentHistory, 'refundedAmount' | 'disputeStatus'> | undefined,
  changes: ChargeChanges,
) => ({
  refundedAmount: Math.max(changes.refundedAmount ?? 0, existing?.refundedAmount ?? 0),
  disputeStatus: laterDisputeState(existing?.disputeStatus ?? 'none', changes.disputeStatus ?? 'none'),
})

/**
 * The payment_history row of an invoice, created or brought up to date: amounts and status from the
 * invoice, refunds and disputes from its charge. A paid invoice stays paid and a refund never shrinks,
 * whatever order the events arrive in.
 */
export const recordInvoicePayment = async (
  { req, event }: StepContext,
  invoice: Stripe.Invoice,
  owner: UserSubscription | null,
  facts: { succeeded: boolean } & ChargeChanges,
) => {
  await lockKey(req, invoice.id ?? event.id)
  const existing = await findPayment(req, invoice.id)
  const succeeded = facts.succeeded || existing?.status === 'succeeded'
  return savePayment(req, invoice.id, existing, {
    user: relationId(owner?.user) ?? relationId(existing?.user),
    email: owner?.email ?? existing?.email ?? invoice.customer_email ?? null,
    subscription: owner?.id ?? relationId(existing?.subscription),
    amount: facts.succeeded ? invoice.amount_paid : (existing?.amount ?? invoice.amount_due),
    currency: invoice.currency,
    paymentType: owner || invoiceSubscriptionId(invoice) ? 'recurring' : 'one_time',
    status: succeeded ? 'succeeded' : 'failed',
    plan: relationId(owner?.plan) ?? relationId(existing?.plan),
    ...invoiceFieldsOf(invoice),
    paidAt:
      facts.succeeded && !existing?.paidAt
        ? new Date((invoice.status_transitions?.paid_at ?? event.created) * 1000).toISOString()
        : (existing?.paidAt ?? null),
    ...chargeChangesOn(existing, facts),
  })
}

/** An invoice's own fields on its payment's row: its pages, number and tax. */
const invoiceFieldsOf = (invoice: Stripe.Invoice) => ({
  processorInvoiceId: invoice.id ?? null,
  invoiceUrl: invoice.hosted_invoice_url ?? null,
  invoicePdf: invoice.invoice_pdf ?? null,
  invoiceNumber: invoice.number ?? null,
  taxAmount: taxOf(invoice),
})

/** The tax an invoice charged: its `total_taxes` (newer API versions), else its `tax`; null when it says none. */
const taxOf = (invoice: Stripe.Invoice): number | null => {
  const shape = invoice as unknown as { total_taxes?: { amount?: number }[] | null; tax?: number | null }
  if (Array.isArray(shape.total_taxes)) return shape.total_taxes.reduce((sum, tax) => sum + (tax.amount ?? 0), 0)
  return typeof shape.tax === 'number' ? shape.tax : null
}

/**
 * A one-time payment's invoice (`invoice_creation` at checkout): it completes the payment's own
 * payment_history row, keyed by the payment intent, whichever of the payment's and the invoice's events
 * comes first. The account is the purchase's, or the payment intent's checkout metadata: never one the
 * invoice alone names.
 */
export const recordOneTimeInvoice = async (
  { req }: StepContext,
  invoice: Stripe.Invoice,
  loaded: LoadedPaymentIntent,
) => {
  const { paymentIntent, charge } = loaded
  await lockKey(req, paymentIntent.id)
  const existing = await findPayment(req, paymentIntent.id)
  if (existing) return updatePayment(req, existing.id, invoiceFieldsOf(invoice))
  const purchase = await findPurchase(req, paymentIntent.id)
  const change = licenseChangeOf(paymentIntent.metadata)
  const buyer =
    relationId(purchase?.user) ?? (await resolveBuyer(req, paymentIntent.metadata?.user_id, null))?.id ?? null
  const plan =
    relationId(purchase?.plan) ??
    (change ? null : (await planForPrice(req, paymentIntent.metadata?.price_id))?.id) ??
    null
  return savePayment(req, paymentIntent.id, undefined, {
    user: buyer,
    email: purchase?.email ?? invoice.customer_email ?? null,
    subscription: null,
    amount: invoice.amount_paid,
    currency: invoice.currency,
    paymentType: 'one_time',
    status: 'succeeded',
    plan,
    refundedAmount: charge?.amount_refunded ?? 0,
    disputeStatus: 'none',
    paidAt: new Date((invoice.status_transitions?.paid_at ?? paymentIntent.created) * 1000).toISOString(),
    ...invoiceFieldsOf(invoice),
  })
}

// Charges: refunds and disputes

/** A charge of a subscription invoice, with the invoice and the subscription it paid. */
type LoadedInvoiceCharge = { charge: Stripe.Charge; invoice: Stripe.Invoice; subscription: LoadedSubscription }

/**
 * What paid for a charge: a one-time purchase, a change of an existing license (an upgrade or a
 * renewal), or a subscription's invoice (found through its invoice payment).
 */
export type LoadedCharge =
  | { oneTime: LoadedPaymentIntent & { charge: Stripe.Charge } }
  | { change: LoadedPaymentIntent & { charge: Stripe.Charge; ref: LicenseChangeRef } }
  | { invoice: LoadedInvoiceCharge }
  | null

export const loadChargeOwner = async (processor: Stripe, charge: Stripe.Charge): Promise<LoadedCharge> => {
  const paymentIntentId = idOf(charge.payment_intent)
  if (!paymentIntentId) return null
  const loaded = await loadPaymentIntent(processor, paymentIntentId)
  const ref = changeOfPaymentIntent(loaded.paymentIntent)
  if (ref) return { change: { ...loaded, charge, ref } }
  if (isOneTimePayment(loaded.paymentIntent)) return { oneTime: { ...loaded, charge } }
  const payments = await processor.invoicePayments.list({
    payment: { type: 'payment_intent', payment_intent: paymentIntentId },
    limit: 1,
  })
  const invoiceId = idOf(payments.data[0]?.invoice)
  if (!invoiceId) return null
  const invoice = await processor.invoices.retrieve(invoiceId)
  const subscription = await loadInvoiceSubscription(processor, invoice)
  return subscription ? { invoice: { charge, invoice, subscription } } : null
}

/** The charge a loaded refund or dispute is about. */
export const chargeOf = (loaded: NonNullable<LoadedCharge>): Stripe.Charge =>
  'oneTime' in loaded ? loaded.oneTime.charge : 'change' in loaded ? loaded.change.charge : loaded.invoice.charge

/**
 * A refund or dispute on a subscription invoice's charge: recorded on the invoice's payment, then the
 * subscription's chargeback state (the worst dispute over all its invoices) decides its license.
 */
const applyInvoiceCharge = async (
  context: StepContext,
  { charge, invoice, subscription }: LoadedInvoiceCharge,
  changes: ChargeChanges,
) => {
  const { subscription: owner } = await applySubscription(context, subscription)
  const payment = await recordInvoicePayment(context, invoice, owner, {
    succeeded: charge.paid && charge.status === 'succeeded',
    ...changes,
  })
  const updated = await applySubscriptionChargebacks(context.req, owner, context.settings)
  return { owner: updated, payment }
}

/** A one-time payment's refund or dispute, also on its payment_history row when that exists. */
const recordChargeChanges = async (req: PayloadRequest, paymentIntentId: string, changes: ChargeChanges) => {
  const existing = await findPayment(req, paymentIntentId)
  if (existing) await updatePayment(req, existing.id, chargeChangesOn(existing, changes))
}

/**
 * A refund or dispute, applied to what the charge paid for (a one-time purchase or a subscription's
 * invoice): who owns it, and the amount and source ids its analytics event names.
 */
export const applyChargeChanges = async (
  context: StepContext,
  loaded: NonNullable<LoadedCharge>,
  changes: ChargeChanges,
) => {
  if ('change' in loaded) {
    const { ref, ...payment } = loaded.change
    const facts = changeFactsOf(ref, payment, changes.disputeStatus)
    const change = await recordLicenseChangePayment(context, facts)
    return {
      owner: { user: change.user, email: facts.email },
      amount: change.amount ?? null,
      source: { licenseChangeId: change.id },
    }
  }
  if ('oneTime' in loaded) {
    const { purchase } = await recordOneTimePayment(context, loaded.oneTime, changes.disputeStatus)
    await recordChargeChanges(context.req, loaded.oneTime.paymentIntent.id, changes)
    return { owner: purchase as { user?: unknown; email?: string | null }, amount: purchase.amount, source: {} }
  }
  const { owner, payment } = await applyInvoiceCharge(context, loaded.invoice, changes)
  return {
    owner,
    amount: payment.amount,
    source: { invoiceId: loaded.invoice.invoice.id, subscriptionId: loaded.invoice.subscription.subscription.id },
  }
}

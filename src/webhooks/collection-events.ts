import crypto from 'node:crypto'

import type { CollectionAfterChangeHook, PayloadRequest } from 'payload'

import type { License, PaymentHistory, UserSubscription } from '../payload-types'
import { emitWebhookEvent } from './emit'
import { LICENSE_FIELDS, licenseData, orderData, subscriptionData } from './payloads'

/**
 * The events that follow a row's change through Payload (hooks on licenses, payment_history and
 * user_subscriptions): each runs in the change's own transaction, so what rolls back sends nothing.
 * A fact with a name of its own (a license created, a payment paid, a refund of a given total, a
 * subscription canceled) is keyed by it, so it is sent once however often it is written. An update is
 * its own fact: it happens once (a processor event applied again finds nothing to change, and writes
 * nothing), so its key only has to be unique.
 */

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null)

/** The fields of `previous` that differ in `doc`, with their values before. */
const changedFields = <T extends object>(doc: T, previous: T | undefined, fields: readonly (keyof T)[]) =>
  Object.fromEntries(
    fields
      .filter((field) => previous && !same(doc[field], previous[field]))
      .map((field) => [field, previous![field] ?? null]),
  )

const relationIdOf = (value: unknown) => (value && typeof value === 'object' ? (value as { id: unknown }).id : value)

/**
 * A new license: license.created, and license.revoked too when it is born revoked (a refund or a lost
 * chargeback applied before the purchase's own events), so a receiver acting on revocations hears of it.
 */
export const announceNewLicense = async (
  req: PayloadRequest,
  license: License,
  /** The endpoints that want license.created, when the insert read them (src/licensing/store.ts). */
  createdEndpoints?: readonly number[],
) => {
  await emitWebhookEvent(req, {
    type: 'license.created',
    sourceKey: `license.created:${license.id}`,
    data: () => licenseData(req, license),
    endpoints: createdEndpoints,
  })
  if (license.status === 'revoked') {
    await emitWebhookEvent(req, {
      type: 'license.revoked',
      sourceKey: `license.revoked:${license.id}:at-creation`,
      data: () => licenseData(req, license),
    })
  }
}

/** license.created (staff's manual licenses; the service's own are announced where they are inserted), license.revoked, license.updated. */
export const licenseEvents: CollectionAfterChangeHook<License> = async ({ doc, previousDoc, operation, req }) => {
  if (operation === 'create') {
    await announceNewLicense(req, doc)
    return doc
  }
  const previous = changedFields(
    { ...doc, plan: relationIdOf(doc.plan), user: relationIdOf(doc.user) } as License,
    previousDoc
      ? ({ ...previousDoc, plan: relationIdOf(previousDoc.plan), user: relationIdOf(previousDoc.user) } as License)
      : undefined,
    LICENSE_FIELDS,
  )
  if (Object.keys(previous).length === 0) return doc
  const revoked = doc.status === 'revoked' && previousDoc?.status !== 'revoked'
  const type = revoked ? 'license.revoked' : 'license.updated'
  await emitWebhookEvent(req, {
    type,
    sourceKey: `${type}:${doc.id}:${crypto.randomUUID()}`,
    data: async () => ({ ...(await licenseData(req, doc)), previous }),
  })
  return doc
}

/** order.paid when a payment first stands succeeded; order.refunded each time its refunded amount grows. */
export const orderEvents: CollectionAfterChangeHook<PaymentHistory> = async ({ doc, previousDoc, operation, req }) => {
  const before = operation === 'create' ? undefined : previousDoc
  if (doc.status === 'succeeded' && before?.status !== 'succeeded') {
    await emitWebhookEvent(req, {
      type: 'order.paid',
      sourceKey: `order.paid:${doc.processorPaymentId}`,
      data: () => orderData(req, doc),
    })
  }
  const refunded = doc.refundedAmount ?? 0
  if (refunded > (before?.refundedAmount ?? 0)) {
    await emitWebhookEvent(req, {
      type: 'order.refunded',
      sourceKey: `order.refunded:${doc.processorPaymentId}:${refunded}`,
      data: async () => ({ ...(await orderData(req, doc)), refundedNow: refunded - (before?.refundedAmount ?? 0) }),
    })
  }
  return doc
}

const SUBSCRIPTION_FIELDS = [
  'status',
  'plan',
  'quantity',
  'billingCycle',
  'currentPeriodEnd',
  'cancelAtPeriodEnd',
  'canceledAt',
] as const

/** subscription.created, subscription.canceled (once, when it becomes canceled), subscription.updated for any other change that matters. */
export const subscriptionEvents: CollectionAfterChangeHook<UserSubscription> = async ({
  doc,
  previousDoc,
  operation,
  req,
}) => {
  const key = doc.processorSubscriptionId
  if (operation === 'create') {
    await emitWebhookEvent(req, {
      type: 'subscription.created',
      sourceKey: `subscription.created:${key}`,
      data: () => subscriptionData(req, doc),
    })
    // First heard of already ended (its deletion's event came first): it ends for receivers too.
    if (doc.status === 'canceled') {
      await emitWebhookEvent(req, {
        type: 'subscription.canceled',
        sourceKey: `subscription.canceled:${key}`,
        data: () => subscriptionData(req, doc),
      })
    }
    return doc
  }
  const previous = changedFields(
    { ...doc, plan: relationIdOf(doc.plan) } as UserSubscription,
    previousDoc ? ({ ...previousDoc, plan: relationIdOf(previousDoc.plan) } as UserSubscription) : undefined,
    SUBSCRIPTION_FIELDS,
  )
  if (Object.keys(previous).length === 0) return doc
  if (doc.status === 'canceled' && previousDoc?.status !== 'canceled') {
    await emitWebhookEvent(req, {
      type: 'subscription.canceled',
      sourceKey: `subscription.canceled:${key}`,
      data: async () => ({ ...(await subscriptionData(req, doc)), previous }),
    })
    return doc
  }
  await emitWebhookEvent(req, {
    type: 'subscription.updated',
    sourceKey: `subscription.updated:${key}:${crypto.randomUUID()}`,
    data: async () => ({ ...(await subscriptionData(req, doc)), previous }),
  })
  return doc
}

import type { CollectionAfterChangeHook, TaskConfig } from 'payload'

import { affiliate_referrals, user_subscriptions } from '../db/schema.generated'
import { execute, sql } from '../db/transaction'
import type { PaymentHistory } from '../payload-types'
import { syncCommission } from './commissions'
import type { AffiliatesRuntime } from './runtime'

/** A payment's commission made to match it (src/affiliates/commissions.ts); retried while the database fails. */
export const syncCommissionTask = (
  runtime: () => AffiliatesRuntime,
  retryDelayMs: number,
): TaskConfig<'syncCommission'> => ({
  slug: 'syncCommission',
  label: "Bring an affiliate's commission in line with its payment",
  inputSchema: [{ name: 'paymentId', type: 'number', required: true }],
  outputSchema: [{ name: 'result', type: 'text' }],
  retries: { attempts: 10, backoff: { type: 'exponential', delay: retryDelayMs } },
  handler: async ({ input, req }) => ({
    output: { result: await syncCommission(req.payload, runtime().settings, input.paymentId) },
  }),
})

/**
 * After every write of a payment (the webhook's, in its transaction): when the payment belongs to a
 * referred sale, its commission sync is queued in the same transaction, so a payment recorded is never
 * left without its commission, and a rolled-back one queues nothing. One indexed probe otherwise.
 */
export const queueCommissionSync: CollectionAfterChangeHook<PaymentHistory> = async ({ doc, req }) => {
  const subscription = typeof doc.subscription === 'object' ? doc.subscription?.id : doc.subscription
  const ref = subscription
    ? sql`(SELECT ${user_subscriptions.processorSubscriptionId} FROM ${user_subscriptions} WHERE ${user_subscriptions.id} = ${subscription})`
    : sql`${doc.processorPaymentId}`
  const referred = await execute(
    req,
    sql`SELECT 1 FROM ${affiliate_referrals} WHERE ${affiliate_referrals.processorRef} = ${ref}`,
  )
  if (referred.length > 0) {
    await req.payload.jobs.queue({ task: 'syncCommission', input: { paymentId: doc.id }, req })
  }
  return doc
}

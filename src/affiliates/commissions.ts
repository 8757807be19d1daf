import type { Payload, PayloadRequest } from 'payload'

import type { SqlRow } from '../db/rows'
import {
  affiliate_commissions,
  affiliate_referrals,
  affiliates,
  one_time_purchases,
  payment_history,
  user_subscriptions,
  users,
} from '../db/schema.generated'
import { bare, execute, inTransaction, sql } from '../db/transaction'
import { emitWebhookEvent } from '../webhooks/emit'
import type { AffiliateSettings, CommissionStatus } from './states'

/** `value × rateBps / 10000`, rounded half up, in whole minor units, exactly (BigInt: no float drift). */
export const commissionOf = (value: number, rateBps: number): number => {
  const product = BigInt(Math.trunc(value)) * BigInt(Math.trunc(rateBps))
  const negative = product < 0n
  const magnitude = negative ? -product : product
  const rounded = (magnitude + 5_000n) / 10_000n
  return Number(negative ? -rounded : rounded)
}

/** What remains paid of `net`, in proportion to what was not refunded of `amount`, rounded half up. */
const remainingOf = (net: number, amount: number, refunded: number): number => {
  if (amount <= 0) return 0
  const kept = BigInt(Math.max(0, amount - refunded))
  return Number((BigInt(net) * kept * 2n + BigInt(amount)) / (BigInt(amount) * 2n))
}

type Payment = Pick<
  SqlRow<typeof payment_history>,
  | 'id'
  | 'user_id'
  | 'email'
  | 'processor_payment_id'
  | 'subscription_id'
  | 'amount'
  | 'currency'
  | 'status'
  | 'refunded_amount'
  | 'dispute_status'
  | 'tax_amount'
  | 'paid_at'
  | 'created_at'
>

type Referral = {
  affiliate_id: number
  kind: string
  started_at: Date | string
  affiliate_status: string
  affiliate_user: number
  affiliate_email: string
  rate_bps: string | number
}

type Commission = Pick<
  SqlRow<typeof affiliate_commissions>,
  'id' | 'amount' | 'status' | 'affiliate_id' | 'currency' | 'available_at'
>

export type SyncOutcome = 'not_attributed' | 'not_earned' | 'created' | 'updated' | 'voided' | 'adjusted' | 'unchanged'

const referralOf = async (tx: PayloadRequest, payment: Payment): Promise<Referral | null> => {
  const r = affiliate_referrals
  const ref = payment.subscription_id
    ? sql`(SELECT ${user_subscriptions.processorSubscriptionId} FROM ${user_subscriptions} WHERE ${user_subscriptions.id} = ${payment.subscription_id})`
    : sql`${payment.processor_payment_id}`
  const [row] = await execute<Referral>(
    tx,
    sql`SELECT ${r.affiliate} AS affiliate_id, ${r.kind} AS kind,
          coalesce((SELECT ${user_subscriptions.createdAt} FROM ${user_subscriptions} WHERE ${user_subscriptions.processorSubscriptionId} = ${r.processorRef}), ${r.createdAt}) AS started_at,
          ${affiliates.status} AS affiliate_status, ${affiliates.user} AS affiliate_user, ${users.email} AS affiliate_email,
          ${affiliates.rateBps} AS rate_bps
        FROM ${r} JOIN ${affiliates} ON ${affiliates.id} = ${r.affiliate} JOIN ${users} ON ${users.id} = ${affiliates.user}
        WHERE ${r.processorRef} = ${ref}`,
  )
  return row ?? null
}

/** The tax of a payment: its own, else its one-time purchase's (the checkout's event says it). */
const taxOf = async (tx: PayloadRequest, payment: Payment): Promise<number> => {
  if (payment.tax_amount !== null) return Number(payment.tax_amount)
  const [purchase] = await execute<{ tax: string | null }>(
    tx,
    sql`SELECT ${one_time_purchases.taxAmount} AS tax FROM ${one_time_purchases}
        WHERE ${one_time_purchases.processorPaymentIntentId} = ${payment.processor_payment_id}`,
  )
  return Number(purchase?.tax ?? 0)
}

const addMonths = (date: Date, months: number) => {
  const next = new Date(date)
  next.setUTCMonth(next.getUTCMonth() + months)
  return next
}

const commissionEvent = (
  type: 'commission.created' | 'commission.voided',
  commission: {
    id: number
    affiliateCode: string
    amount: number
    currency: string
    paymentId: number
    status: string
  },
) => ({
  type,
  sourceKey: `${type}:${commission.id}`,
  data: () => ({
    commission: {
      id: commission.id,
      affiliate: commission.affiliateCode,
      amount: commission.amount,
      currency: commission.currency,
      status: commission.status,
      payment: commission.paymentId,
    },
  }),
})

/**
 * Make a payment's commission match the payment as it is now, under the payment's lock (so two syncs of
 * one payment queue up, and one commission exists per payment whatever the order or number of its
 * events). Earned by a succeeded payment of a referred sale (a subscription's invoices only in its first
 * AFFILIATE_RECURRING_MONTHS), not by the affiliate's own purchase or a disabled affiliate's new sale.
 * A refund scales it, a full refund or a lost dispute voids it, an open dispute holds it; once paid out,
 * the difference becomes a negative adjustment carried into the next payout.
 */
export const syncCommission = async (
  payload: Payload,
  settings: AffiliateSettings,
  paymentId: number,
): Promise<SyncOutcome> =>
  inTransaction(payload, async (tx) => {
    const p = payment_history
    const [payment] = await execute<Payment>(
      tx,
      sql`SELECT ${p.id}, ${p.user}, ${p.email}, ${p.processorPaymentId}, ${p.subscription}, ${p.amount}, ${p.currency}, ${p.status},
            ${p.refundedAmount}, ${p.disputeStatus}, ${p.taxAmount}, ${p.paidAt}, ${p.createdAt}
          FROM ${p} WHERE ${p.id} = ${paymentId} FOR UPDATE`,
    )
    if (!payment) return 'not_attributed'
    const referral = await referralOf(tx, payment)
    if (!referral) return 'not_attributed'
    const c = affiliate_commissions
    const [existing] = await execute<Commission>(
      tx,
      sql`SELECT ${c.id}, ${c.amount}, ${c.status}, ${c.affiliate}, ${c.currency}, ${c.availableAt}
          FROM ${c} WHERE ${c.sourceKey} = ${`payment:${payment.id}`}`,
    )
    const amount = Number(payment.amount)
    const refunded = Number(payment.refunded_amount ?? 0)
    const paidAt = new Date(payment.paid_at ?? payment.created_at)
    const net = Math.max(0, amount - (await taxOf(tx, payment)))
    const basis = remainingOf(net, amount, refunded)
    const rate = Number(referral.rate_bps)
    const voided = refunded >= amount || payment.dispute_status === 'lost'
    const target = voided ? 0 : commissionOf(basis, rate)
    const state: CommissionStatus = voided ? 'void' : payment.dispute_status === 'open' ? 'held' : 'pending'
    const [code] = await execute<{ code: string }>(
      tx,
      sql`SELECT ${affiliates.code} AS code FROM ${affiliates} WHERE ${affiliates.id} = ${referral.affiliate_id}`,
    )
    const event = (id: number, value: number, status: string) => ({
      id,
      affiliateCode: code!.code,
      amount: value,
      currency: payment.currency.toLowerCase(),
      paymentId: payment.id,
      status,
    })

    if (!existing) {
      const email = (payment.email ?? '').toLowerCase()
      const own =
        (payment.user_id !== null && Number(payment.user_id) === Number(referral.affiliate_user)) ||
        (email !== '' && email === referral.affiliate_email.toLowerCase())
      const inWindow =
        referral.kind === 'purchase' ||
        paidAt.getTime() < addMonths(new Date(referral.started_at), settings.recurringMonths).getTime()
      if (payment.status !== 'succeeded' || own || referral.affiliate_status !== 'active' || !inWindow || voided)
        return 'not_earned'
      const availableAt = new Date(paidAt.getTime() + settings.holdDays * 86_400_000)
      const [created] = await execute<{ id: number }>(
        tx,
        sql`INSERT INTO ${c} (${bare(c.affiliate, c.sourceKey, c.payment, c.kind, c.basis, c.rateBps, c.amount, c.currency, c.status, c.availableAt)},
              ${bare(c.updatedAt, c.createdAt)})
            VALUES (${referral.affiliate_id}, ${`payment:${payment.id}`}, ${payment.id}, 'commission', ${basis}, ${rate}, ${target},
              ${payment.currency.toLowerCase()}, ${state}, ${availableAt.toISOString()}, now(), now())
            ON CONFLICT (${bare(c.sourceKey)}) DO NOTHING RETURNING ${c.id}`,
      )
      if (!created) return 'unchanged'
      await emitWebhookEvent(tx, commissionEvent('commission.created', event(created.id, target, state)))
      return 'created'
    }

    const current = existing.status as CommissionStatus
    if (current === 'paid') {
      // Paid out already: what it should be now, less what was paid and adjusted, becomes an adjustment.
      const [sums] = await execute<{ adjusted: string; count: string }>(
        tx,
        sql`SELECT coalesce(sum(${c.amount}), 0) AS adjusted, count(*) AS count FROM ${c}
            WHERE ${c.payment} = ${payment.id} AND ${c.kind} = 'adjustment'`,
      )
      const difference = target - (Number(existing.amount) + Number(sums?.adjusted ?? 0))
      if (difference === 0) return 'unchanged'
      await execute(
        tx,
        sql`INSERT INTO ${c} (${bare(c.affiliate, c.sourceKey, c.payment, c.kind, c.basis, c.rateBps, c.amount, c.currency, c.status, c.availableAt)},
              ${bare(c.updatedAt, c.createdAt)})
            VALUES (${existing.affiliate_id}, ${`adjustment:${payment.id}:${Number(sums?.count ?? 0) + 1}`}, ${payment.id}, 'adjustment', ${basis},
              ${rate}, ${difference}, ${existing.currency}, 'pending', now(), now(), now())`,
      )
      return 'adjusted'
    }
    if (current === state && Number(existing.amount) === target) return 'unchanged'
    await execute(
      tx,
      sql`UPDATE ${c} SET ${bare(c.amount)} = ${target}, ${bare(c.basis)} = ${basis}, ${bare(c.status)} = ${state}, ${bare(c.updatedAt)} = now()
          WHERE ${c.id} = ${existing.id}`,
    )
    if (state === 'void') {
      await emitWebhookEvent(tx, commissionEvent('commission.voided', event(existing.id, 0, 'void')))
      return 'voided'
    }
    return 'updated'
  })

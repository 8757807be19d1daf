import type { Payload, PayloadRequest } from 'payload'

import { track } from '../analytics/track'
import type { SqlRow } from '../db/rows'
import {
  checkout_recoveries,
  email_unsubscribes,
  one_time_purchases,
  payment_history,
  plans,
  users,
} from '../db/schema.generated'
import { bare, execute, inTransaction, lockKey, sql } from '../db/transaction'
import { queueEmail } from '../email/send-task'
import { recoveryEmail } from './email'
import { normalEmail, recoverPath, unsubscribeToken } from './links'
import type { RecoveryRuntime } from './runtime'
import type { RecoveryReason } from './states'

type Row = Pick<
  SqlRow<typeof checkout_recoveries>,
  | 'id'
  | 'checkout_session_id'
  | 'user_id'
  | 'email'
  | 'email_hash'
  | 'plan'
  | 'amount'
  | 'currency'
  | 'started_at'
  | 'status'
  | 'recovery_expires_at'
>

/** Whether the account or the address (any case) paid anything since `since`: a payment, or a settled purchase. */
const paidSince = async (tx: PayloadRequest, row: Row, email: string): Promise<boolean> => {
  const since = new Date(row.started_at ?? 0).toISOString()
  const buyer = (table: typeof payment_history | typeof one_time_purchases) => sql`(
    ${row.user_id === null ? sql`false` : sql`${table.user} = ${row.user_id}`}
    OR lower(${table.email}) = ${email}
    OR ${table.user} IN (SELECT ${users.id} FROM ${users} WHERE lower(${users.email}) = ${email}))`
  const [found] = await execute<{ paid: boolean }>(
    tx,
    sql`SELECT EXISTS (
          SELECT 1 FROM ${payment_history} WHERE ${payment_history.status} = 'succeeded'
            AND coalesce(${payment_history.paidAt}, ${payment_history.createdAt}) >= ${since}::timestamptz AND ${buyer(payment_history)}
        ) OR EXISTS (
          SELECT 1 FROM ${one_time_purchases} WHERE ${one_time_purchases.status} = 'succeeded'
            AND ${one_time_purchases.createdAt} >= ${since}::timestamptz AND ${buyer(one_time_purchases)}
        ) AS paid`,
  )
  return Boolean(found?.paid)
}

/** Why the email due now is not sent; null when it goes. */
const reasonAtSendTime = async (
  tx: PayloadRequest,
  runtime: RecoveryRuntime,
  row: Row,
  email: string,
): Promise<RecoveryReason | null> => {
  if (!runtime.settings.enabled) return 'recovery_off'
  if (await paidSince(tx, row, email)) return 'paid_since'
  const [rules] = await execute<{ unsubscribed: boolean; emailed_lately: boolean }>(
    tx,
    sql`SELECT
          EXISTS (SELECT 1 FROM ${email_unsubscribes} WHERE ${email_unsubscribes.emailHash} = ${row.email_hash}) AS unsubscribed,
          ${
            runtime.settings.minIntervalDays > 0
              ? sql`EXISTS (SELECT 1 FROM ${checkout_recoveries} WHERE ${checkout_recoveries.emailHash} = ${row.email_hash}
                  AND ${checkout_recoveries.id} <> ${row.id}
                  AND ${checkout_recoveries.emailedAt} > now() - make_interval(days => ${runtime.settings.minIntervalDays}))`
              : sql`false`
          } AS emailed_lately`,
  )
  if (rules?.unsubscribed) return 'unsubscribed'
  if (rules?.emailed_lately) return 'recently_emailed'
  if (!row.recovery_expires_at || new Date(row.recovery_expires_at).getTime() <= Date.now()) return 'link_expired'
  return null
}

export type RecoveryOutcome = 'sent' | RecoveryReason | 'not_waiting'

/**
 * The recovery email of one abandoned checkout, when it is due: under the row's lock (a second run finds
 * it no longer waiting) and a lock on the address (two checkouts of one address due at once send one
 * email), it is queued with the row marked emailed in one transaction, or dropped with the reason.
 */
export const sendRecoveryEmail = async (
  payload: Payload,
  runtime: RecoveryRuntime,
  recoveryId: number,
): Promise<RecoveryOutcome> =>
  inTransaction(payload, async (tx) => {
    const c = checkout_recoveries
    const [row] = await execute<Row>(
      tx,
      sql`SELECT ${c.id}, ${c.checkoutSessionId}, ${c.user}, ${c.email}, ${c.emailHash}, ${c.plan}, ${c.amount}, ${c.currency},
            ${c.startedAt}, ${c.status}, ${c.recoveryExpiresAt}
          FROM ${c} WHERE ${c.id} = ${recoveryId} FOR UPDATE`,
    )
    if (!row || row.status !== 'waiting' || !row.email || !row.email_hash) return 'not_waiting'
    await lockKey(tx, `recovery-email:${row.email_hash}`)
    const email = normalEmail(row.email)
    const reason = await reasonAtSendTime(tx, runtime, row, email)
    if (reason) {
      await execute(
        tx,
        sql`UPDATE ${c} SET ${bare(c.status)} = 'not_sent', ${bare(c.reason)} = ${reason}, ${bare(c.updatedAt)} = now()
            WHERE ${c.id} = ${row.id}`,
      )
      return reason
    }
    const [plan] = row.plan
      ? await execute<Pick<SqlRow<typeof plans>, 'name'>>(
          tx,
          sql`SELECT ${plans.name} FROM ${plans} WHERE ${plans.slug} = ${row.plan}`,
        )
      : []
    const token = unsubscribeToken(payload.secret, email)
    const message = recoveryEmail({
      productName: runtime.productName,
      planName: plan?.name ?? null,
      amount: row.amount === null ? null : Number(row.amount),
      currency: row.currency,
      recoverUrl: `${runtime.serverUrl}${recoverPath(payload.secret, row.checkout_session_id)}`,
      unsubscribePageUrl: `${runtime.serverUrl}/unsubscribe/${token}`,
      unsubscribeOneClickUrl: `${runtime.serverUrl}/api/email/unsubscribe/${token}`,
      linkExpiresAt: row.recovery_expires_at ? new Date(row.recovery_expires_at) : null,
    })
    await queueEmail(tx, { to: row.email, ...message })
    await execute(
      tx,
      sql`UPDATE ${c} SET ${bare(c.status)} = 'emailed', ${bare(c.emailedAt)} = now(), ${bare(c.updatedAt)} = now()
          WHERE ${c.id} = ${row.id}`,
    )
    await track(tx, {
      name: 'recovery_email_sent',
      userId: row.user_id === null ? null : Number(row.user_id),
      sourceId: row.checkout_session_id,
      properties: { plan: row.plan, currency: row.currency },
    })
    return 'sent'
  })

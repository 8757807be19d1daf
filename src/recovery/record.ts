import type { PayloadRequest } from 'payload'
import type Stripe from 'stripe'

import { track } from '../analytics/track'
import type { SqlRow } from '../db/rows'
import { checkout_recoveries, users } from '../db/schema.generated'
import { bare, execute, isoTimestamp, sql } from '../db/transaction'
import { emailHash, sealRecoveryUrl } from './links'
import type { RecoveryReason, RecoverySettings } from './states'

const paid = (session: Stripe.Checkout.Session) =>
  session.status === 'complete' &&
  (session.payment_status === 'paid' || session.payment_status === 'no_payment_required')

const accountIdOf = (session: Stripe.Checkout.Session): number | null => {
  const id = Number(session.metadata?.user_id)
  return Number.isSafeInteger(id) && id > 0 ? id : null
}

/** The buyer's address: what they typed (the processor shares it only with their consent), else their account's. */
const addressOf = async (req: PayloadRequest, session: Stripe.Checkout.Session, userId: number | null) => {
  const typed = session.customer_details?.email ?? session.customer_email ?? null
  if (typed || userId === null) return typed
  const [account] = await execute<Pick<SqlRow<typeof users>, 'email'>>(
    req,
    sql`SELECT ${users.email} FROM ${users} WHERE ${users.id} = ${userId} AND ${users.deletion_erasedAt} IS NULL`,
  )
  return account?.email ?? null
}

/** Why an expired checkout gets no email, decided when it expires; null: the email is due. */
const reasonAtExpiry = (
  settings: RecoverySettings,
  facts: { url: string | null; consent: string | null; email: string | null },
): RecoveryReason | null => {
  if (!settings.enabled) return 'recovery_off'
  if (!facts.url) return 'no_recovery_link'
  if (facts.consent !== 'opt_in') return 'no_consent'
  if (!facts.email) return 'no_email'
  return null
}

/**
 * `checkout.session.expired`, in the event's transaction (applied once, like every processor event):
 * one `checkout_recoveries` row and the analytics `checkout_expired`; with the buyer's consent, an
 * address and a recovery link, the recovery email's job, due RECOVERY_EMAIL_DELAY_MINUTES later. A
 * checkout already recovered (its recovered copy's events came first) keeps that and is emailed nothing.
 */
export const recordExpiredCheckout = async (
  req: PayloadRequest,
  session: Stripe.Checkout.Session,
  { settings, expiredAt }: { settings: RecoverySettings; expiredAt: Date },
): Promise<void> => {
  const recovery = session.after_expiration?.recovery ?? null
  const url = recovery?.enabled ? (recovery.url ?? null) : null
  const consent = session.consent?.promotions ?? null
  const userId = accountIdOf(session)
  const email = await addressOf(req, session, userId)
  const reason = reasonAtExpiry(settings, { url, consent, email })
  const dueAt = reason ? null : new Date(expiredAt.getTime() + settings.emailDelayMinutes * 60_000)
  const c = checkout_recoveries
  const [row] = await execute<{ id: number; status: string; inserted: boolean }>(
    req,
    sql`INSERT INTO ${c} (${bare(c.checkoutSessionId, c.user, c.email, c.emailHash, c.plan, c.amount, c.currency, c.startedAt, c.expiredAt)},
          ${bare(c.status, c.reason, c.emailDueAt, c.recoveryUrl, c.recoveryExpiresAt, c.updatedAt, c.createdAt)})
        VALUES (${session.id}, ${userId}, ${email}, ${email ? emailHash(email) : null}, ${session.metadata?.plan_id ?? null},
          ${session.amount_total}, ${session.currency}, ${new Date(session.created * 1000).toISOString()}, ${expiredAt.toISOString()},
          ${reason ? 'not_sent' : 'waiting'}, ${reason}, ${isoTimestamp(dueAt)}, ${url ? sealRecoveryUrl(req.payload.secret, url) : null},
          ${recovery?.expires_at ? new Date(recovery.expires_at * 1000).toISOString() : null}, now(), now())
        ON CONFLICT (${bare(c.checkoutSessionId)}) DO UPDATE SET
          ${bare(c.user)} = coalesce(${c.user}, EXCLUDED.${bare(c.user)}),
          ${bare(c.email)} = coalesce(${c.email}, EXCLUDED.${bare(c.email)}),
          ${bare(c.emailHash)} = coalesce(${c.emailHash}, EXCLUDED.${bare(c.emailHash)}),
          ${bare(c.plan)} = coalesce(${c.plan}, EXCLUDED.${bare(c.plan)}),
          ${bare(c.amount)} = EXCLUDED.${bare(c.amount)}, ${bare(c.startedAt)} = EXCLUDED.${bare(c.startedAt)},
          ${bare(c.expiredAt)} = EXCLUDED.${bare(c.expiredAt)}, ${bare(c.recoveryExpiresAt)} = EXCLUDED.${bare(c.recoveryExpiresAt)},
          ${bare(c.updatedAt)} = now()
        RETURNING ${c.id}, ${c.status}, (xmax = 0) AS inserted`,
  )
  await track(req, {
    name: 'checkout_expired',
    userId,
    sourceId: session.id,
    occurredAt: expiredAt,
    properties: {
      plan: session.metadata?.plan_id ?? null,
      amount: session.amount_total,
      currency: session.currency,
      consent: consent ?? 'none',
      ...(reason ? { reason } : {}),
    },
  })
  if (row?.inserted && row.status === 'waiting' && dueAt) {
    await req.payload.jobs.queue({ task: 'sendRecoveryEmail', input: { recoveryId: row.id }, waitUntil: dueAt, req })
  }
}

/**
 * A paid checkout the buyer reopened through a recovery link (`recovered_from`), in its event's
 * transaction: the abandoned checkout is recovered (a recovery email still waiting is then dropped),
 * and `checkout_recovered` counts it once, whichever of its events comes first, the expiry's included.
 */
export const recordRecoveredCheckout = async (req: PayloadRequest, session: Stripe.Checkout.Session): Promise<void> => {
  const original = session.recovered_from
  if (!original || !paid(session)) return
  const userId = accountIdOf(session)
  const c = checkout_recoveries
  await execute(
    req,
    sql`INSERT INTO ${c} (${bare(c.checkoutSessionId, c.user, c.plan, c.currency, c.status, c.recoveredSessionId, c.recoveredAt, c.recoveredAmount, c.updatedAt, c.createdAt)})
        VALUES (${original}, ${userId}, ${session.metadata?.plan_id ?? null}, ${session.currency}, 'recovered', ${session.id}, now(),
          ${session.amount_total}, now(), now())
        ON CONFLICT (${bare(c.checkoutSessionId)}) DO UPDATE SET
          ${bare(c.status)} = 'recovered', ${bare(c.reason)} = NULL,
          ${bare(c.recoveredSessionId)} = coalesce(${c.recoveredSessionId}, EXCLUDED.${bare(c.recoveredSessionId)}),
          ${bare(c.recoveredAt)} = coalesce(${c.recoveredAt}, EXCLUDED.${bare(c.recoveredAt)}),
          ${bare(c.recoveredAmount)} = coalesce(${c.recoveredAmount}, EXCLUDED.${bare(c.recoveredAmount)}),
          ${bare(c.updatedAt)} = now()`,
  )
  await track(req, {
    name: 'checkout_recovered',
    userId,
    sourceId: original,
    properties: {
      sessionId: session.id,
      plan: session.metadata?.plan_id ?? null,
      amount: session.amount_total,
      currency: session.currency,
    },
  })
}

import type { Payload, PayloadRequest } from 'payload'

import { isStaffUser } from '../access/roles'
import { requireCurrentPassword } from '../auth/password-hash'
import { consumeAuthToken, issueAuthToken } from '../auth/tokens'
import type { SqlRow } from '../db/rows'
import { auth_tokens, users, users_sessions } from '../db/schema.generated'
import { bare, execute, inTransaction, sql } from '../db/transaction'
import { deletionScheduledEmail } from '../email/account-emails'
import { queueEmail } from '../email/send-task'
import { ServiceError } from '../http/errors'
import type { User } from '../payload-types'
import { recordAudit } from '../staff/audit'

/**
 * Deleting an account (docs/PRIVACY.md): asked for by its owner with a fresh proof of identity, or by an
 * admin with a reason; refused while a subscription would keep charging; erased by the job
 * (./erasure.ts) when the grace period ends, unless cancelled meanwhile from the dashboard or the email's
 * single-use link.
 */

export type DeletionSettings = {
  /** ACCOUNT_DELETION_GRACE_DAYS: 0 erases at the job's next turn. */
  graceDays: number
  serverUrl: string
  productName: string
}

/** How recent a session must be to stand in for the password of an account that has none. */
const FRESH_SESSION_MS = 10 * 60 * 1000

const DAY_MS = 24 * 60 * 60 * 1000

/** Subscription states that charge again unless set to cancel. */
const CHARGING = ['active', 'trialing', 'past_due'] as const

export type DeletionStatus = { scheduledFor: string; requestedBy: 'customer' | 'staff' } | null

const reauthenticationRequired = (hasPassword: boolean) =>
  new ServiceError(
    403,
    'reauthentication_required',
    hasPassword
      ? 'Confirm with your password (password) to delete your account.'
      : 'Sign in again (a session from the last 10 minutes) to delete your account.',
  )

/**
 * The owner proves it is them now: the account's password when it has one; otherwise a session issued
 * in the last 10 minutes (a stolen older session cannot delete an account).
 */
const reauthenticate = async (
  payload: Payload,
  user: User,
  input: { password?: string | null; sessionId?: string | null; address: string | null },
  now: Date,
) => {
  if (user.passwordSet) {
    if (typeof input.password !== 'string' || input.password === '') throw reauthenticationRequired(true)
    try {
      await requireCurrentPassword(payload, user, input.password, { address: input.address, hint: '' })
    } catch (error) {
      if (error instanceof ServiceError && error.code === 'current_password_incorrect')
        throw reauthenticationRequired(true)
      throw error
    }
    return
  }
  const [session] = input.sessionId
    ? await execute<Pick<SqlRow<typeof users_sessions>, 'created_at'>>(
        { payload } as PayloadRequest,
        sql`SELECT ${users_sessions.createdAt} FROM ${users_sessions}
            WHERE ${users_sessions._parentID} = ${user.id} AND ${users_sessions.id} = ${input.sessionId}`,
      )
    : []
  const issuedAt = session?.created_at ? new Date(session.created_at).getTime() : 0
  if (now.getTime() - issuedAt > FRESH_SESSION_MS) throw reauthenticationRequired(false)
}

type LockedAccount = Pick<
  SqlRow<typeof users>,
  'id' | 'email' | 'deletion_scheduled_for' | 'deletion_requested_by' | 'deletion_erased_at'
>

/** The account's row, locked for the transaction (the erasure job takes the same lock). */
const lockAccount = async (tx: PayloadRequest, userId: number): Promise<LockedAccount | null> => {
  const [row] = await execute<LockedAccount>(
    tx,
    sql`SELECT ${users.id}, ${users.email}, ${users.deletion_scheduledFor}, ${users.deletion_requestedBy}, ${users.deletion_erasedAt}
        FROM ${users} WHERE ${users.id} = ${userId} FOR UPDATE`,
  )
  return row ?? null
}

/**
 * When the account may be erased: the grace period from now, or the end of the paid period of a
 * subscription set to cancel, whichever is later. A subscription that would charge again refuses.
 */
const erasureTime = async (tx: PayloadRequest, userId: number, graceDays: number, now: Date): Promise<Date> => {
  const { docs } = await tx.payload.find({
    collection: 'user_subscriptions',
    where: { and: [{ user: { equals: userId } }, { status: { in: [...CHARGING] } }] },
    depth: 0,
    pagination: false,
    overrideAccess: true,
    req: tx,
  })
  if (docs.some((subscription) => !subscription.cancelAtPeriodEnd)) {
    throw new ServiceError(
      409,
      'active_subscription',
      'This account has a subscription that renews: cancel it in the billing portal first (the account can then be deleted when the paid period ends).',
    )
  }
  let at = now.getTime() + graceDays * DAY_MS
  for (const subscription of docs) {
    const end = subscription.currentPeriodEnd ? new Date(subscription.currentPeriodEnd).getTime() : 0
    if (end > at) at = end
  }
  return new Date(at)
}

/** Whether any subscription of the account would charge again: the erasure job asks again at its time. */
export const hasChargingSubscription = async (tx: PayloadRequest, userId: number): Promise<boolean> => {
  const { totalDocs } = await tx.payload.count({
    collection: 'user_subscriptions',
    where: {
      and: [
        { user: { equals: userId } },
        { status: { in: [...CHARGING] } },
        { or: [{ cancelAtPeriodEnd: { equals: false } }, { cancelAtPeriodEnd: { exists: false } }] },
      ],
    },
    overrideAccess: true,
    req: tx,
  })
  return totalDocs > 0
}

const schedule = async (
  tx: PayloadRequest,
  account: LockedAccount,
  requestedBy: 'customer' | 'staff',
  settings: DeletionSettings,
  now: Date,
): Promise<{ scheduledFor: Date; created: boolean }> => {
  if (account.deletion_erased_at) throw new ServiceError(409, 'account_erased', 'This account is erased already.')
  // Asked twice (a double click, an admin after the customer): the first request stands, one email.
  if (account.deletion_scheduled_for) return { scheduledFor: new Date(account.deletion_scheduled_for), created: false }
  const scheduledFor = await erasureTime(tx, account.id, settings.graceDays, now)
  await tx.payload.update({
    collection: 'users',
    id: account.id,
    data: { deletion: { requestedAt: now.toISOString(), requestedBy, scheduledFor: scheduledFor.toISOString() } },
    depth: 0,
    overrideAccess: true,
    req: tx,
  })
  // The cancel link works until the erasure (and a day after, for a job that runs late).
  const token = await issueAuthToken(tx, {
    purpose: 'deletion_cancel',
    email: account.email,
    userId: account.id,
    ttlMs: scheduledFor.getTime() - now.getTime() + DAY_MS,
  })
  await queueEmail(tx, {
    to: account.email,
    ...deletionScheduledEmail(settings.productName, {
      scheduledFor,
      cancelUrl: `${settings.serverUrl}/account/keep?token=${encodeURIComponent(token)}`,
      byStaff: requestedBy === 'staff',
    }),
  })
  return { scheduledFor, created: true }
}

const staffAccount = () =>
  new ServiceError(
    409,
    'staff_account',
    'A staff account is not deleted this way: an admin takes its staff roles away first.',
  )

/**
 * The owner asks for their account's deletion (POST /api/account/deletion, the dashboard's form): 202
 * `{scheduledFor}`, and an email with a link that cancels it. Asking again while one is pending answers
 * the same date and sends nothing.
 */
export const requestAccountDeletion = async (
  payload: Payload,
  user: User,
  input: { password?: string | null; sessionId?: string | null; address: string | null },
  settings: DeletionSettings,
  now = new Date(),
): Promise<{ scheduledFor: string }> => {
  if (isStaffUser(user)) throw staffAccount()
  await reauthenticate(payload, user, input, now)
  return inTransaction(payload, async (tx) => {
    const account = await lockAccount(tx, user.id)
    if (!account) throw new ServiceError(404, 'not_found', 'This account does not exist any more.')
    const { scheduledFor } = await schedule(tx, account, 'customer', settings, now)
    return { scheduledFor: scheduledFor.toISOString() }
  })
}

/**
 * An admin starts the same deletion for a customer (POST /api/staff/users/:id/deletion {reason}), with
 * the same refusals, audited. The customer gets the same email and may still cancel it.
 */
export const scheduleDeletionByStaff = (
  req: PayloadRequest,
  userId: number,
  reason: string,
  settings: DeletionSettings,
  now = new Date(),
): Promise<{ user: { id: number }; scheduledFor: string; auditLogId: number }> =>
  inTransaction(req.payload, async (tx) => {
    tx.user = req.user
    const account = await lockAccount(tx, userId)
    if (!account) throw new ServiceError(404, 'user_not_found', 'There is no user with this id.')
    const target = await tx.payload.findByID({
      collection: 'users',
      id: userId,
      depth: 0,
      overrideAccess: true,
      req: tx,
    })
    if (isStaffUser(target)) throw staffAccount()
    const { scheduledFor, created } = await schedule(tx, account, 'staff', settings, now)
    if (!created)
      throw new ServiceError(
        409,
        'deletion_pending',
        `This account is deleted on ${scheduledFor.toISOString()} already.`,
      )
    const auditLogId = await recordAudit(tx, {
      action: 'user.schedule_deletion',
      targetCollection: 'users',
      targetId: String(userId),
      reason,
      before: { scheduledFor: null },
      after: { scheduledFor: scheduledFor.toISOString() },
    })
    return { user: { id: userId }, scheduledFor: scheduledFor.toISOString(), auditLogId }
  })

/** The account's pending deletion forgotten, in `tx` (the caller holds the account's row). */
export const clearPendingDeletion = async (tx: PayloadRequest, userId: number): Promise<void> => {
  await tx.payload.update({
    collection: 'users',
    id: userId,
    data: { deletion: { requestedAt: null, requestedBy: null, scheduledFor: null } },
    depth: 0,
    overrideAccess: true,
    req: tx,
  })
}

/** Clears a pending deletion in `tx` (the account's row locked); false when there is none to cancel. */
const cancelPending = async (tx: PayloadRequest, userId: number): Promise<boolean> => {
  const account = await lockAccount(tx, userId)
  if (!account?.deletion_scheduled_for || account.deletion_erased_at) return false
  await clearPendingDeletion(tx, userId)
  // Any cancel link still in an inbox stops working.
  await execute(
    tx,
    sql`UPDATE ${auth_tokens} SET ${bare(auth_tokens.supersededAt)} = now(), ${bare(auth_tokens.updatedAt)} = now()
        WHERE ${auth_tokens.purpose} = 'deletion_cancel' AND ${auth_tokens.user} = ${userId}
          AND ${auth_tokens.consumedAt} IS NULL AND ${auth_tokens.supersededAt} IS NULL`,
  )
  return true
}

const noPendingDeletion = () =>
  new ServiceError(404, 'no_pending_deletion', 'This account has no deletion waiting to be cancelled.')

/** The owner cancels a pending deletion (DELETE /api/account/deletion, the dashboard's Cancel). */
export const cancelAccountDeletion = async (payload: Payload, userId: number): Promise<void> => {
  const cancelled = await inTransaction(payload, (tx) => cancelPending(tx, userId))
  if (!cancelled) throw noPendingDeletion()
}

/**
 * The email's "Keep my account" link, used once without signing in (the page's button posts it). A
 * used, superseded, expired or unknown link, or one whose account was erased meanwhile, is
 * 400 `invalid_link`.
 */
export const cancelAccountDeletionWithToken = async (payload: Payload, token: unknown): Promise<void> => {
  const invalid = new ServiceError(400, 'invalid_link', 'This link was used, replaced or has expired.')
  if (typeof token !== 'string') throw invalid
  const consumed = await consumeAuthToken(payload, 'deletion_cancel', token)
  if (!consumed?.userId) throw invalid
  const userId = consumed.userId
  const cancelled = await inTransaction(payload, (tx) => cancelPending(tx, userId))
  if (!cancelled) throw invalid
}

/** The account's pending deletion, for the dashboard: null when none is waiting. */
export const deletionStatusOf = (user: Pick<User, 'deletion'>): DeletionStatus =>
  user.deletion?.scheduledFor && !user.deletion.erasedAt
    ? { scheduledFor: user.deletion.scheduledFor, requestedBy: user.deletion.requestedBy ?? 'customer' }
    : null

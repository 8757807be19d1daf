import type { Payload, PayloadRequest, TaskConfig } from 'payload'
import Stripe from 'stripe'

import { RANDOM_PASSWORD, randomPassword } from '../auth/password-hash'
import { claimPurchases } from '../billing/customers'
import { queueCommunitySync } from '../licensing/entitlement-changes'
import { forgetPurchaseEmails, lockBuyerEmail } from '../billing/store'
import type { SqlRow } from '../db/rows'
import {
  analytics_events,
  discord_links,
  affiliates,
  api_keys,
  checkout_recoveries,
  audit_log,
  auth_tokens,
  downloads,
  oauth_identities,
  one_time_purchases,
  processor_events,
  repo_access,
  repo_usernames,
  support_replies,
  support_requests,
  template_downloads,
  user_subscriptions,
  users,
  users_sessions,
} from '../db/schema.generated'
import { accountLockKey, bare, execute, inTransaction, lockKey, sql } from '../db/transaction'
import { type CodeHostProvider, withdrawRepoAccess } from '../delivery/repo-access'
import { deletionStoppedEmail } from '../email/account-emails'
import { queueEmail } from '../email/send-task'
import { forgetActivationsOf } from '../licensing/activation-store'
import { STAFF_ACTION } from '../licensing/staff-action'
import { emailHash } from '../recovery/links'
import { endSeatsOfErasedAccount } from '../teams/seats'
import { emitWebhookEvent } from '../webhooks/emit'
import { clearPendingDeletion, hasChargingSubscription } from './deletion'

/**
 * The erasure of an account whose deletion is due (docs/PRIVACY.md): the person goes, the books stay.
 * Run every minute by the jobs worker, in steps that each end where the next can pick up after a
 * crash, so a job killed half way runs again and ends the same:
 *
 * 1. One transaction erases everything held in the database about the person and revokes every access
 *    (licenses, seats, installations, keys, sessions, sign-in methods) and marks the account erased.
 *    Purchases, subscriptions, payments and invoices stay, on the erased account.
 * 2. The processor's customers of the account are deleted (an already deleted one counts as done).
 * 3. Repository access is withdrawn on the code host, then the username is forgotten.
 * 4. The erasure is marked complete and `customer.deleted` goes out.
 *
 * A step that fails (the processor or the code host unreachable) leaves the account erased but not
 * complete, its reason in `deletion.lastError` for staff, and the next run tries again: nothing
 * half-erased is ever reported complete.
 */

export type ErasureDeps = {
  /** The processor's client, or null where none is configured (nothing to delete there). */
  processor: () => Stripe | null
  codeHost: CodeHostProvider
  productName: string
  serverUrl: string
}

/** The address an erased account keeps: unique, reserved (RFC 2606's `.invalid`) and valid for Payload's email field. */
export const erasedEmail = (userId: number) => `deleted-${userId}@erased.invalid`

const ERASED_TEXT = '(erased)'

/** Accounts erased per run: the rest wait for the next minute. */
const BATCH = 20

type AccountRow = Pick<
  SqlRow<typeof users>,
  | 'id'
  | 'email'
  | 'name'
  | 'email_verified'
  | 'processor_customer_id'
  | 'deletion_scheduled_for'
  | 'deletion_erased_at'
  | 'deletion_completed_at'
>

type Outcome = 'not_due' | 'stopped' | 'erased' | 'complete'

/** Every string value in `value` with `needles` (case-insensitive) replaced, keys kept. */
const scrub = (value: unknown, needles: RegExp): unknown => {
  if (typeof value === 'string') return value.replace(needles, ERASED_TEXT)
  if (Array.isArray(value)) return value.map((item) => scrub(item, needles))
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, scrub(item, needles)]))
  return value
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/**
 * The audit log keeps what staff did, never who the erased person was: their address and name are
 * replaced wherever a row holds them (a reason typed by staff, an email change's before and after).
 */
const scrubAuditLog = async (tx: PayloadRequest, email: string, name: string | null) => {
  const words = [email, ...(name && name.trim().length >= 3 ? [name.trim()] : [])]
  const needles = new RegExp(words.map(escapeRegExp).join('|'), 'gi')
  const matches = sql.join(
    words.map(
      (word) =>
        sql`(strpos(lower(coalesce(${audit_log.reason}, '')), lower(${word})) > 0
             OR strpos(lower(coalesce(${audit_log.before}::text, '')), lower(${word})) > 0
             OR strpos(lower(coalesce(${audit_log.after}::text, '')), lower(${word})) > 0)`,
    ),
    sql` OR `,
  )
  const rows = await execute<Pick<SqlRow<typeof audit_log>, 'id' | 'reason' | 'before' | 'after'>>(
    tx,
    sql`SELECT ${audit_log.id}, ${audit_log.reason}, ${audit_log.before}, ${audit_log.after} FROM ${audit_log} WHERE ${matches}`,
  )
  // pg hands jsonb over as text here (Payload's session leaves its parsing off): parsed, scrubbed, written back.
  const json = (value: unknown) => {
    if (value === null || value === undefined) return null
    return JSON.stringify(scrub(typeof value === 'string' ? JSON.parse(value) : value, needles))
  }
  for (const row of rows) {
    await execute(
      tx,
      sql`UPDATE ${audit_log} SET ${bare(audit_log.reason)} = ${scrub(row.reason, needles)},
            ${bare(audit_log.before)} = ${json(row.before)}::jsonb, ${bare(audit_log.after)} = ${json(row.after)}::jsonb
          WHERE ${audit_log.id} = ${row.id}`,
    )
  }
}

/** Revoke every license of the account (reason `account_deleted`) and drop its checkout email, through Payload: the licenses' hooks send license.revoked and withdraw repository access. */
const revokeLicenses = async (tx: PayloadRequest, userId: number) => {
  const { docs } = await tx.payload.find({
    collection: 'licenses',
    where: { user: { equals: userId } },
    depth: 0,
    pagination: false,
    overrideAccess: true,
    req: tx,
  })
  for (const license of docs) {
    const revoke = license.override !== 'revoked'
    if (!revoke && license.email === null) continue
    await tx.payload.update({
      collection: 'licenses',
      id: license.id,
      data: revoke ? { override: 'revoked', overrideReason: 'account_deleted', email: null } : { email: null },
      depth: 0,
      overrideAccess: true,
      req: tx,
      context: { [STAFF_ACTION]: {}, overrideBy: 'account_deletion' },
    })
  }
}

/** Step 1: in one transaction, the person is erased and every access revoked. */
const eraseIdentity = async (tx: PayloadRequest, userId: number, deps: ErasureDeps, now: Date): Promise<Outcome> => {
  // Purchases in flight for this account finish first (they hold this lock shared), and later ones see it erased.
  await lockKey(tx, accountLockKey(userId))
  const [account] = await execute<AccountRow>(
    tx,
    sql`SELECT ${users.id}, ${users.email}, ${users.name}, ${users.emailVerified}, ${users.processorCustomerId},
          ${users.deletion_scheduledFor}, ${users.deletion_erasedAt}, ${users.deletion_completedAt}
        FROM ${users} WHERE ${users.id} = ${userId} FOR UPDATE`,
  )
  if (!account) return 'not_due'
  if (account.deletion_completed_at) return 'complete'
  if (account.deletion_erased_at) return 'erased'
  if (!account.deletion_scheduled_for || new Date(account.deletion_scheduled_for).getTime() > now.getTime())
    return 'not_due'
  const email = account.email
  // A purchase decided by this verified email waits, or is decided after: then the account is no one's.
  await lockBuyerEmail(tx, email)

  // Reactivated during the grace period: deleting would take a renewing customer's money and access.
  if (await hasChargingSubscription(tx, userId)) {
    await clearPendingDeletion(tx, userId)
    await queueEmail(tx, { to: email, ...deletionStoppedEmail(deps.productName, `${deps.serverUrl}/dashboard`) })
    tx.payload.logger.warn({ msg: 'account deletion stopped: a subscription renews', userId })
    return 'stopped'
  }

  // Anonymous purchases made with the verified address are this person's: they join the account and end
  // with it, so a later sign-up with the same address inherits nothing.
  if (account.email_verified) await claimPurchases(tx, { id: userId, email })
  await revokeLicenses(tx, userId)
  const erased = erasedEmail(userId)
  await endSeatsOfErasedAccount(tx, userId, erased)
  await forgetActivationsOf(tx, userId)

  // Sign-in methods, keys and links.
  await execute(tx, sql`DELETE FROM ${oauth_identities} WHERE ${oauth_identities.user} = ${userId}`)
  await execute(tx, sql`DELETE FROM ${api_keys} WHERE ${api_keys.user} = ${userId}`)
  await execute(
    tx,
    sql`DELETE FROM ${auth_tokens} WHERE ${auth_tokens.user} = ${userId} OR lower(${auth_tokens.email}) = lower(${email})`,
  )
  await execute(tx, sql`DELETE FROM ${users_sessions} WHERE ${users_sessions._parentID} = ${userId}`)
  // The affiliate program: no new commissions, no payout address; its commissions and payouts are books.
  await execute(
    tx,
    sql`UPDATE ${affiliates} SET ${bare(affiliates.status)} = 'disabled', ${bare(affiliates.payoutEmail)} = ${erased},
          ${bare(affiliates.updatedAt)} = now()
        WHERE ${affiliates.user} = ${userId}`,
  )
  // Abandoned checkouts (their address, and a recovery email still due). The unsubscribe list keeps its
  // fingerprint: an erased address that asked for no reminders gets none, whoever types it next.
  await execute(
    tx,
    sql`DELETE FROM ${checkout_recoveries} WHERE ${checkout_recoveries.user} = ${userId} OR ${checkout_recoveries.emailHash} = ${emailHash(email)}`,
  )
  // The Discord account is forgotten; the roles it was given come off through the queued sync (docs/COMMUNITY.md).
  await execute(
    tx,
    sql`UPDATE ${discord_links} SET ${bare(discord_links.discordUserId)} = NULL, ${bare(discord_links.discordUsername)} = NULL,
          ${bare(discord_links.updatedAt)} = now()
        WHERE ${discord_links.user} = ${userId}`,
  )
  await queueCommunitySync(tx, [userId])

  // What the person wrote and where they came from.
  await execute(
    tx,
    sql`UPDATE ${support_requests} SET ${bare(support_requests.subject)} = ${ERASED_TEXT}, ${bare(support_requests.message)} = ${ERASED_TEXT},
          ${bare(support_requests.updatedAt)} = now()
        WHERE ${support_requests.user} = ${userId}`,
  )
  await execute(
    tx,
    sql`UPDATE ${support_replies} SET ${bare(support_replies.body)} = ${ERASED_TEXT}, ${bare(support_replies.updatedAt)} = now()
        WHERE ${support_replies.request} IN (SELECT ${support_requests.id} FROM ${support_requests} WHERE ${support_requests.user} = ${userId})`,
  )
  for (const table of [downloads, template_downloads]) {
    await execute(
      tx,
      sql`UPDATE ${table} SET ${bare(table.clientAddress)} = NULL, ${bare(table.userAgent)} = NULL
          WHERE ${table.user} = ${userId} AND (${table.clientAddress} IS NOT NULL OR ${table.userAgent} IS NOT NULL)`,
    )
  }
  await execute(
    tx,
    sql`UPDATE ${analytics_events} SET ${bare(analytics_events.email)} = NULL
        WHERE (${analytics_events.user} = ${userId} OR lower(${analytics_events.email}) = lower(${email})) AND ${analytics_events.email} IS NOT NULL`,
  )
  // The processor's events as they arrived carry the buyer's name, address and email: only their ids stay.
  await execute(
    tx,
    sql`UPDATE ${processor_events}
        SET ${bare(processor_events.payload)} = jsonb_build_object('id', ${processor_events.eventId}, 'type', ${processor_events.type}, 'erased', true),
            ${bare(processor_events.updatedAt)} = now()
        WHERE strpos(lower(${processor_events.payload}::text), lower(${email})) > 0`,
  )
  await scrubAuditLog(tx, email, account.name)

  // The books keep amounts, tax and dates on the erased account, no longer the checkout's address.
  await forgetPurchaseEmails(tx, userId)
  for (const collection of ['user_subscriptions', 'payment_history'] as const) {
    await tx.payload.update({
      collection,
      where: { and: [{ user: { equals: userId } }, { email: { exists: true } }] },
      data: { email: null },
      depth: 0,
      overrideAccess: true,
      req: tx,
    })
  }

  // The account itself: no address, name or password that opens it (through Payload, whose hooks watch
  // the verified flag); every session ended above.
  await tx.payload.update({
    collection: 'users',
    id: userId,
    data: { email: erased, name: null, pendingEmail: null, emailVerified: false, password: randomPassword() },
    depth: 0,
    overrideAccess: true,
    req: tx,
    context: { [RANDOM_PASSWORD]: true },
  })
  await execute(
    tx,
    sql`UPDATE ${users} SET ${bare(users.resetPasswordToken)} = NULL, ${bare(users.resetPasswordExpiration)} = NULL,
          ${bare(users.resetPasswordRequestedAt)} = NULL, ${bare(users.loginAttempts)} = 0, ${bare(users.lockUntil)} = NULL,
          ${bare(users.deletion_erasedAt)} = ${now.toISOString()}, ${bare(users.deletion_lastError)} = NULL, ${bare(users.updatedAt)} = now()
        WHERE ${users.id} = ${userId}`,
  )
  return 'erased'
}

/** The processor customers of the account that no other account's rows name. */
const processorCustomersOf = async (payload: Payload, userId: number): Promise<string[]> => {
  const rows = await execute<Pick<SqlRow<typeof users>, 'processor_customer_id'>>(
    { payload } as PayloadRequest,
    sql`SELECT DISTINCT mine.processor_customer_id FROM (
          SELECT ${users.processorCustomerId} AS processor_customer_id FROM ${users} WHERE ${users.id} = ${userId}
          UNION SELECT ${user_subscriptions.processorCustomerId} FROM ${user_subscriptions} WHERE ${user_subscriptions.user} = ${userId}
          UNION SELECT ${one_time_purchases.processorCustomerId} FROM ${one_time_purchases} WHERE ${one_time_purchases.user} = ${userId}
        ) AS mine
        WHERE mine.processor_customer_id IS NOT NULL
          AND NOT EXISTS (SELECT 1 FROM ${user_subscriptions} WHERE ${user_subscriptions.processorCustomerId} = mine.processor_customer_id AND ${user_subscriptions.user} <> ${userId})
          AND NOT EXISTS (SELECT 1 FROM ${one_time_purchases} WHERE ${one_time_purchases.processorCustomerId} = mine.processor_customer_id AND ${one_time_purchases.user} <> ${userId})
          AND NOT EXISTS (SELECT 1 FROM ${users} WHERE ${users.processorCustomerId} = mine.processor_customer_id AND ${users.id} <> ${userId})`,
  )
  return rows.flatMap((row) => (row.processor_customer_id ? [row.processor_customer_id] : []))
}

/** Step 2: each of the account's customers deleted at the processor; one deleted already counts as done. */
const deleteProcessorCustomers = async (payload: Payload, userId: number, deps: ErasureDeps) => {
  const customers = await processorCustomersOf(payload, userId)
  if (customers.length === 0) return
  const processor = deps.processor()
  if (!processor) return
  for (const customer of customers) {
    try {
      await processor.customers.del(customer)
    } catch (error) {
      if (error instanceof Stripe.errors.StripeInvalidRequestError && error.code === 'resource_missing') continue
      throw error
    }
  }
}

/** Step 3: repository access taken off the code host (retried while it fails), then the username forgotten. */
const forgetRepositoryAccess = async (payload: Payload, userId: number, deps: ErasureDeps) => {
  await withdrawRepoAccess({ payload } as PayloadRequest, deps.codeHost, userId)
  await inTransaction(payload, async (tx) => {
    await lockKey(tx, `repo-access:${userId}`)
    await execute(tx, sql`DELETE FROM ${repo_usernames} WHERE ${repo_usernames.user} = ${userId}`)
    await execute(tx, sql`DELETE FROM ${repo_access} WHERE ${repo_access.user} = ${userId}`)
  })
}

/** Step 4: complete, once: `customer.deleted` and the erasure's own audit row (the account id only). */
const completeErasure = (payload: Payload, userId: number, now: Date) =>
  inTransaction(payload, async (tx) => {
    const [row] = await execute<Pick<SqlRow<typeof users>, 'deletion_completed_at' | 'deletion_requested_by'>>(
      tx,
      sql`SELECT ${users.deletion_completedAt}, ${users.deletion_requestedBy} FROM ${users} WHERE ${users.id} = ${userId} FOR UPDATE`,
    )
    if (!row || row.deletion_completed_at) return
    await execute(
      tx,
      // The processor customer's id stays: events the processor sends about it later are recognised and
      // stored without the person in them (src/billing/webhook/process.ts).
      sql`UPDATE ${users} SET ${bare(users.deletion_completedAt)} = ${now.toISOString()}, ${bare(users.deletion_lastError)} = NULL,
            ${bare(users.updatedAt)} = now()
          WHERE ${users.id} = ${userId}`,
    )
    await tx.payload.create({
      collection: 'audit_log',
      data: {
        actor: null,
        action: 'user.erased',
        targetCollection: 'users',
        targetId: String(userId),
        reason:
          row.deletion_requested_by === 'staff' ? 'deletion started by an admin' : 'deletion asked by the customer',
        before: null,
        after: { erasedAt: now.toISOString() },
      },
      overrideAccess: true,
      req: tx,
    })
    await emitWebhookEvent(tx, {
      type: 'customer.deleted',
      sourceKey: `customer.deleted:${userId}`,
      data: () => ({
        customer: { id: userId },
        requestedBy: row.deletion_requested_by ?? 'customer',
        deletedAt: now.toISOString(),
      }),
    })
  })

/**
 * Erase one account if its deletion is due, resuming where an earlier run stopped. Returns what
 * happened: not due (or cancelled), stopped (a subscription renews), or complete.
 */
export const eraseAccount = async (
  payload: Payload,
  userId: number,
  deps: ErasureDeps,
  now = new Date(),
): Promise<'not_due' | 'stopped' | 'complete'> => {
  const outcome = await inTransaction(payload, (tx) => eraseIdentity(tx, userId, deps, now))
  if (outcome === 'not_due' || outcome === 'stopped') return outcome
  if (outcome === 'complete') return 'complete'
  try {
    await deleteProcessorCustomers(payload, userId, deps)
    await forgetRepositoryAccess(payload, userId, deps)
  } catch (error) {
    const reason = error instanceof Error ? error.message.slice(0, 300) : 'unknown error'
    await execute(
      { payload } as PayloadRequest,
      sql`UPDATE ${users} SET ${bare(users.deletion_lastError)} = ${reason} WHERE ${users.id} = ${userId}`,
    )
    throw error
  }
  await completeErasure(payload, userId, now)
  return 'complete'
}

/** The accounts whose deletion is due, and those erased but not complete: each erased, one failure not stopping the others. */
export const eraseDueAccounts = async (
  payload: Payload,
  deps: ErasureDeps,
  now = new Date(),
): Promise<{ complete: number; waiting: number }> => {
  const due = await execute<Pick<SqlRow<typeof users>, 'id'>>(
    { payload } as PayloadRequest,
    sql`SELECT ${users.id} FROM ${users}
        WHERE ${users.deletion_scheduledFor} <= ${now.toISOString()} AND ${users.deletion_completedAt} IS NULL
        ORDER BY ${users.deletion_scheduledFor} LIMIT ${BATCH}`,
  )
  const result = { complete: 0, waiting: 0 }
  for (const { id } of due) {
    try {
      if ((await eraseAccount(payload, id, deps, now)) === 'complete') result.complete += 1
    } catch (error) {
      result.waiting += 1
      payload.logger.warn({ err: error, userId: id }, 'account erasure waits for its next run')
    }
  }
  return result
}

/** Every minute, through the jobs worker: the deletions whose time has come (ACCOUNT_DELETION_GRACE_DAYS). */
export const eraseDueAccountsTask = (deps: ErasureDeps): TaskConfig<'eraseDueAccounts'> => ({
  slug: 'eraseDueAccounts',
  label: 'Erase the accounts whose deletion is due',
  inputSchema: [],
  outputSchema: [
    { name: 'complete', type: 'number' },
    { name: 'waiting', type: 'number' },
  ],
  schedule: [{ cron: '* * * * *', queue: 'default' }],
  handler: async ({ req }) => ({ output: await eraseDueAccounts(req.payload, deps) }),
})

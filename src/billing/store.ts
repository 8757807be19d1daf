import type { PayloadRequest } from 'payload'

import { iso, num, type SqlRow } from '../db/rows'
import { one_time_purchases, plans, users } from '../db/schema.generated'
import { accountLockKey, bare, columnList, execute, lockKey, lockKeyShared, sql } from '../db/transaction'
import type { OneTimePurchase, Plan } from '../payload-types'

/**
 * The webhook's hot rows in plain SQL, on the event's transaction (`req`): the buyer, the plan a price
 * belongs to and the one-time purchase (its license: src/licensing/store.ts). Each is one statement with RETURNING where
 * Payload's Local API would send a write and a read-back and build both through the ORM's relational
 * query builder (most of a webhook's CPU time, measured with `npm run bench`). None of these
 * collections has a hook that acts on what is written here: the licenses' hooks act only on a staff
 * override, which the webhook never sets. Rows come back in the shape Payload's Local API returns at
 * depth 0 (relationships as ids, dates as ISO strings, numbers as numbers).
 */

/** What the webhook needs of a buyer. */
export type Buyer = { id: number; processorCustomerId: string | null }

/** What checkout and the webhook need of a plan. */
export type PlanRef = Pick<Plan, 'id' | 'slug' | 'active' | 'isFree' | 'allowPromotionCodes' | 'maxSeats'>

/**
 * Whose purchase this is: the signed-in buyer named in the checkout metadata, or else the account
 * whose verified email is the checkout email. Null means anonymous: the rows keep the email, and the
 * account that later signs in with that verified email claims them.
 */
/**
 * Serialise, per email, deciding whose a purchase is with claiming purchases into the account that
 * just verified it (claimPurchases, customers.ts), to the end of `req`'s transaction. Without it a
 * purchase recorded while a verification commits could stay anonymous: the webhook would read the
 * account as unverified, and the claim would not see the webhook's uncommitted rows.
 */
export const lockBuyerEmail = (req: PayloadRequest, email: string): Promise<void> =>
  lockKey(req, `buyer-email:${email.toLowerCase()}`)

export const resolveBuyer = async (
  req: PayloadRequest,
  metadataUserId: string | null | undefined,
  email: string | null | undefined,
): Promise<Buyer | null> => {
  const id = Number(metadataUserId)
  const byId = metadataUserId && Number.isInteger(id) && id > 0 ? id : null
  const address = email ? email.toLowerCase() : null
  if (byId === null && address === null) return null
  // Only a purchase decided by its email can race a verification. A statement of its own: the lookup below
  // must read after a verification that held the lock commits. Not for a named account: the verification
  // holds that account's row while it waits for this lock, and the webhook may write the row
  // (rememberCustomer), so both orders would meet and deadlock.
  if (byId === null && address !== null) await lockBuyerEmail(req, address)
  // A named account's erasure waits for this purchase, or this purchase sees the account erased: never a
  // license given to an account after its erasure revoked the others.
  if (byId !== null) await lockKeyShared(req, accountLockKey(byId))
  // One statement: the named account when it exists, else the verified owner of the email. An erased
  // account is no one's: the purchase stays with its checkout email, as an anonymous one does.
  const [row] = await execute<Pick<SqlRow<typeof users>, 'id' | 'processor_customer_id'>>(
    req,
    sql`SELECT ${users.id}, ${users.processorCustomerId} FROM ${users}
        WHERE (${users.id} = ${byId} OR (${users.email} = ${address} AND ${users.emailVerified}))
          AND ${users.deletion_erasedAt} IS NULL
        ORDER BY (${users.id} = ${byId}) IS TRUE DESC
        LIMIT 1`,
  )
  return row ? { id: Number(row.id), processorCustomerId: row.processor_customer_id } : null
}

/** The plan that sells this price (its monthly or yearly price id), active or not, if any. */
export const planForPrice = async (
  req: PayloadRequest,
  priceId: string | null | undefined,
): Promise<PlanRef | null> => {
  if (!priceId) return null
  const [row] = await execute<
    Pick<SqlRow<typeof plans>, 'id' | 'slug' | 'active' | 'is_free' | 'allow_promotion_codes' | 'max_seats'>
  >(
    req,
    sql`SELECT ${columnList(plans.id, plans.slug, plans.active, plans.isFree, plans.allowPromotionCodes, plans.maxSeats)} FROM ${plans}
        WHERE ${plans.priceIds_monthly} = ${priceId} OR ${plans.priceIds_yearly} = ${priceId} ORDER BY ${plans.id} LIMIT 1`,
  )
  return row
    ? {
        id: Number(row.id),
        slug: String(row.slug),
        active: Boolean(row.active),
        isFree: Boolean(row.is_free),
        allowPromotionCodes: Boolean(row.allow_promotion_codes),
        maxSeats: Number(row.max_seats ?? 1),
      }
    : null
}

/** Remember the buyer's processor customer, so their next checkout and the portal reuse it. */
export const rememberCustomer = async (
  req: PayloadRequest,
  buyer: Buyer | null,
  customerId: string | null,
): Promise<void> => {
  if (!buyer || !customerId || buyer.processorCustomerId) return
  await execute(
    req,
    sql`UPDATE ${users} SET ${bare(users.processorCustomerId)} = ${customerId}, ${bare(users.updatedAt)} = now()
        WHERE ${users.id} = ${buyer.id} AND ${users.processorCustomerId} IS NULL`,
  )
  buyer.processorCustomerId = customerId
}

const PURCHASE_COLUMNS = columnList(
  one_time_purchases.id,
  one_time_purchases.user,
  one_time_purchases.email,
  one_time_purchases.plan,
  one_time_purchases.processorPaymentIntentId,
  one_time_purchases.processorCheckoutSessionId,
  one_time_purchases.processorCustomerId,
  one_time_purchases.processorChargeId,
  one_time_purchases.processorPriceId,
  one_time_purchases.quantity,
  one_time_purchases.amount,
  one_time_purchases.taxAmount,
  one_time_purchases.currency,
  one_time_purchases.status,
  one_time_purchases.refundedAmount,
  one_time_purchases.disputeStatus,
  one_time_purchases.grantedAt,
  one_time_purchases.revokedAt,
  one_time_purchases.updatedAt,
  one_time_purchases.createdAt,
)

/** A row of PURCHASE_COLUMNS: every column of the table. */
type PurchaseRow = SqlRow<typeof one_time_purchases>

const purchaseOf = (row: PurchaseRow): OneTimePurchase => ({
  id: Number(row.id),
  user: num(row.user_id),
  email: row.email,
  plan: num(row.plan_id),
  processorPaymentIntentId: String(row.processor_payment_intent_id),
  processorCheckoutSessionId: row.processor_checkout_session_id,
  processorCustomerId: row.processor_customer_id,
  processorChargeId: row.processor_charge_id,
  processorPriceId: row.processor_price_id,
  quantity: num(row.quantity) ?? 1,
  amount: num(row.amount),
  taxAmount: num(row.tax_amount),
  currency: row.currency,
  status: row.status,
  refundedAmount: num(row.refunded_amount),
  disputeStatus: row.dispute_status ?? 'none',
  grantedAt: iso(row.granted_at),
  revokedAt: iso(row.revoked_at),
  updatedAt: iso(row.updated_at)!,
  createdAt: iso(row.created_at)!,
})

export const findPurchase = async (req: PayloadRequest, paymentIntentId: string): Promise<OneTimePurchase | null> => {
  const [row] = await execute<PurchaseRow>(
    req,
    sql`SELECT ${PURCHASE_COLUMNS} FROM ${one_time_purchases} WHERE ${one_time_purchases.processorPaymentIntentId} = ${paymentIntentId}`,
  )
  return row ? purchaseOf(row) : null
}

export type PurchaseWrite = Pick<
  OneTimePurchase,
  | 'status'
  | 'processorCheckoutSessionId'
  | 'processorCustomerId'
  | 'processorChargeId'
  | 'processorPriceId'
  | 'quantity'
  | 'amount'
  | 'taxAmount'
  | 'currency'
  | 'refundedAmount'
  | 'disputeStatus'
  | 'email'
  | 'grantedAt'
> & { plan: number; user: number | null }

/** Insert a purchase (the caller holds the payment intent's lock and found none). */
export const insertPurchase = async (
  req: PayloadRequest,
  paymentIntentId: string,
  data: PurchaseWrite,
): Promise<OneTimePurchase> => {
  const [row] = await execute<PurchaseRow>(
    req,
    sql`INSERT INTO ${one_time_purchases}
          (${bare(one_time_purchases.user, one_time_purchases.email, one_time_purchases.plan, one_time_purchases.processorPaymentIntentId)},
           ${bare(one_time_purchases.processorCheckoutSessionId, one_time_purchases.processorCustomerId, one_time_purchases.processorChargeId)},
           ${bare(one_time_purchases.processorPriceId, one_time_purchases.quantity, one_time_purchases.amount, one_time_purchases.currency, one_time_purchases.status)},
           ${bare(one_time_purchases.refundedAmount, one_time_purchases.disputeStatus, one_time_purchases.grantedAt, one_time_purchases.taxAmount)},
           ${bare(one_time_purchases.updatedAt, one_time_purchases.createdAt)})
        VALUES (${data.user}, ${data.email ?? null}, ${data.plan}, ${paymentIntentId}, ${data.processorCheckoutSessionId ?? null},
          ${data.processorCustomerId ?? null}, ${data.processorChargeId ?? null}, ${data.processorPriceId ?? null}, ${data.quantity ?? 1}, ${data.amount ?? null},
          ${data.currency ?? null}, ${data.status}, ${data.refundedAmount ?? 0}, ${data.disputeStatus ?? 'none'},
          ${data.grantedAt ?? null}, ${data.taxAmount ?? null}, now(), now())
        RETURNING ${PURCHASE_COLUMNS}`,
  )
  return purchaseOf(row!)
}

/** Write a purchase's facts (the caller holds the payment intent's lock and merged them with the row). */
export const updatePurchase = async (
  req: PayloadRequest,
  id: number,
  data: PurchaseWrite,
): Promise<OneTimePurchase> => {
  const [row] = await execute<PurchaseRow>(
    req,
    sql`UPDATE ${one_time_purchases}
        SET ${bare(one_time_purchases.user)} = ${data.user}, ${bare(one_time_purchases.email)} = ${data.email ?? null},
          ${bare(one_time_purchases.plan)} = ${data.plan},
          ${bare(one_time_purchases.processorCheckoutSessionId)} = ${data.processorCheckoutSessionId ?? null},
          ${bare(one_time_purchases.processorCustomerId)} = ${data.processorCustomerId ?? null},
          ${bare(one_time_purchases.processorChargeId)} = ${data.processorChargeId ?? null},
          ${bare(one_time_purchases.processorPriceId)} = ${data.processorPriceId ?? null},
          ${bare(one_time_purchases.quantity)} = ${data.quantity ?? 1},
          ${bare(one_time_purchases.amount)} = ${data.amount ?? null}, ${bare(one_time_purchases.currency)} = ${data.currency ?? null},
          ${bare(one_time_purchases.taxAmount)} = ${data.taxAmount ?? null},
          ${bare(one_time_purchases.status)} = ${data.status}, ${bare(one_time_purchases.refundedAmount)} = ${data.refundedAmount ?? 0},
          ${bare(one_time_purchases.disputeStatus)} = ${data.disputeStatus ?? 'none'}, ${bare(one_time_purchases.grantedAt)} = ${data.grantedAt ?? null},
          ${bare(one_time_purchases.updatedAt)} = now()
        WHERE ${one_time_purchases.id} = ${id}
        RETURNING ${PURCHASE_COLUMNS}`,
  )
  if (!row) throw new Error(`one-time purchase ${id} disappeared while its payment was applied`)
  return purchaseOf(row)
}

export const markPurchaseRevoked = async (req: PayloadRequest, id: number, at: string): Promise<void> => {
  await execute(
    req,
    sql`UPDATE ${one_time_purchases} SET ${bare(one_time_purchases.revokedAt)} = ${at}, ${bare(one_time_purchases.updatedAt)} = now()
        WHERE ${one_time_purchases.id} = ${id} AND ${one_time_purchases.revokedAt} IS NULL`,
  )
}

/**
 * An erased account's one-time purchases keep their amounts, tax and dates (financial records) but no
 * longer the checkout's email (src/privacy/erasure.ts). No event: nothing a receiver acts on changes.
 */
export const forgetPurchaseEmails = async (req: PayloadRequest, userId: number): Promise<void> => {
  await execute(
    req,
    sql`UPDATE ${one_time_purchases} SET ${bare(one_time_purchases.email)} = NULL, ${bare(one_time_purchases.updatedAt)} = now()
        WHERE ${one_time_purchases.user} = ${userId} AND ${one_time_purchases.email} IS NOT NULL`,
  )
}

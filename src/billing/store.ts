import type { PayloadRequest } from 'payload'

import { iso, num, type SqlRow } from '../db/rows'
import { one_time_purchases, plans, users } from '../db/schema.generated'
import { run, statement } from '../db/statements'
import { accountLockKey, bare, columnList, execute, lockKey, lockKeyShared, type SQL, sql } from '../db/transaction'
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
 * Serialise, per email, deciding whose a purchase is with claiming purchases into the account that
 * just verified it (claimPurchases, customers.ts), to the end of `req`'s transaction. Without it a
 * purchase recorded while a verification commits could stay anonymous: the webhook would read the
 * account as unverified, and the claim would not see the webhook's uncommitted rows.
 */
export const lockBuyerEmail = (req: PayloadRequest, email: string): Promise<void> =>
  lockKey(req, `buyer-email:${email.toLowerCase()}`)

/** The account a buyer id (from the metadata) or else a verified email names, as the statements below read it. */
const buyerAccount = (p: { byId: SQL; address: SQL }) =>
  sql`SELECT ${users.id}, ${users.processorCustomerId} FROM ${users}
      WHERE (${users.id} = ${p.byId}::integer OR (${users.email} = ${p.address}::varchar AND ${users.emailVerified}))
        AND ${users.deletion_erasedAt} IS NULL
      ORDER BY (${users.id} = ${p.byId}::integer) IS TRUE DESC
      LIMIT 1`

const READ_BUYER = statement<'byId' | 'address', Pick<SqlRow<typeof users>, 'id' | 'processor_customer_id'>>((p) =>
  buyerAccount(p),
)

/** The buyer's id from the checkout metadata, and the email lowercased; null when there is none. */
const buyerRef = (metadataUserId: string | null | undefined, email: string | null | undefined) => {
  const id = Number(metadataUserId)
  return {
    byId: metadataUserId && Number.isInteger(id) && id > 0 ? id : null,
    address: email ? email.toLowerCase() : null,
  }
}

/**
 * The lock deciding whose a purchase is takes (resolveBuyer): only a purchase decided by its email can
 * race a verification, so it takes the email's lock. Not for a named account: the verification holds that
 * account's row while it waits for this lock, and the webhook may write the row (rememberCustomer), so
 * both orders would meet and deadlock. A named account's erasure waits for this purchase (its lock held
 * shared), or this purchase sees the account erased: never a license given to an account after its
 * erasure revoked the others.
 */
const buyerLocks = ({ byId, address }: { byId: number | null; address: string | null }) => ({
  exclusive: byId === null && address !== null ? `buyer-email:${address}` : null,
  shared: byId !== null ? accountLockKey(byId) : null,
})

/**
 * Whose purchase this is: the signed-in buyer named in the checkout metadata, or else the account
 * whose verified email is the checkout email. Null means anonymous: the rows keep the email, and the
 * account that later signs in with that verified email claims them.
 */
export const resolveBuyer = async (
  req: PayloadRequest,
  metadataUserId: string | null | undefined,
  email: string | null | undefined,
): Promise<Buyer | null> => {
  const ref = buyerRef(metadataUserId, email)
  if (ref.byId === null && ref.address === null) return null
  // A statement of its own: the lookup below must read after a verification that held the lock commits.
  const locks = buyerLocks(ref)
  if (locks.exclusive) await lockKey(req, locks.exclusive)
  if (locks.shared) await lockKeyShared(req, locks.shared)
  // One statement: the named account when it exists, else the verified owner of the email. An erased
  // account is no one's: the purchase stays with its checkout email, as an anonymous one does.
  const [row] = await run(req, READ_BUYER, ref)
  return row ? { id: Number(row.id), processorCustomerId: row.processor_customer_id } : null
}

const PLAN_REF_COLUMNS = columnList(
  plans.id,
  plans.slug,
  plans.active,
  plans.isFree,
  plans.allowPromotionCodes,
  plans.maxSeats,
)

type PlanRefRow = Pick<
  SqlRow<typeof plans>,
  'id' | 'slug' | 'active' | 'is_free' | 'allow_promotion_codes' | 'max_seats'
>

const planSellingPrice = (priceId: SQL) =>
  sql`SELECT ${PLAN_REF_COLUMNS} FROM ${plans}
      WHERE ${plans.priceIds_monthly} = ${priceId}::varchar OR ${plans.priceIds_yearly} = ${priceId}::varchar ORDER BY ${plans.id} LIMIT 1`

const PLAN_FOR_PRICE = statement<'priceId', PlanRefRow>((p) => planSellingPrice(p.priceId))

const planRefOf = (row: PlanRefRow): PlanRef => ({
  id: Number(row.id),
  slug: String(row.slug),
  active: Boolean(row.active),
  isFree: Boolean(row.is_free),
  allowPromotionCodes: Boolean(row.allow_promotion_codes),
  maxSeats: Number(row.max_seats ?? 1),
})

/** The plan that sells this price (its monthly or yearly price id), active or not, if any. */
export const planForPrice = async (
  req: PayloadRequest,
  priceId: string | null | undefined,
): Promise<PlanRef | null> => {
  if (!priceId) return null
  const [row] = await run(req, PLAN_FOR_PRICE, { priceId })
  return row ? planRefOf(row) : null
}

const REMEMBER_CUSTOMER = statement<'customerId' | 'userId'>(
  (p) =>
    sql`UPDATE ${users} SET ${bare(users.processorCustomerId)} = ${p.customerId}, ${bare(users.updatedAt)} = now()
        WHERE ${users.id} = ${p.userId} AND ${users.processorCustomerId} IS NULL`,
)

/** Remember the buyer's processor customer, so their next checkout and the portal reuse it. */
export const rememberCustomer = async (
  req: PayloadRequest,
  buyer: Buyer | null,
  customerId: string | null,
): Promise<void> => {
  if (!buyer || !customerId || buyer.processorCustomerId) return
  await run(req, REMEMBER_CUSTOMER, { customerId, userId: buyer.id })
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

const FIND_PURCHASE = statement<'paymentIntentId', PurchaseRow>(
  (p) =>
    sql`SELECT ${PURCHASE_COLUMNS} FROM ${one_time_purchases} WHERE ${one_time_purchases.processorPaymentIntentId} = ${p.paymentIntentId}`,
)

export const findPurchase = async (req: PayloadRequest, paymentIntentId: string): Promise<OneTimePurchase | null> => {
  const [row] = await run(req, FIND_PURCHASE, { paymentIntentId })
  return row ? purchaseOf(row) : null
}

const LOCK_PURCHASE = statement<'paymentIntentId' | 'exclusive' | 'shared'>(
  // Left to right; a NULL key takes no lock (the functions are strict).
  (p) =>
    sql`SELECT pg_advisory_xact_lock(hashtext(${p.paymentIntentId}::text)), pg_advisory_xact_lock(hashtext(${p.exclusive}::text)),
          pg_advisory_xact_lock_shared(hashtext(${p.shared}::text))`,
)

const READ_PURCHASE = statement<'paymentIntentId' | 'byId' | 'address' | 'priceId', PurchaseContextRow>(
  (p) =>
    sql`SELECT (SELECT row_to_json(buyer) FROM (${buyerAccount(p)}) AS buyer) AS buyer,
          (SELECT row_to_json(price_plan) FROM (${planSellingPrice(p.priceId)}) AS price_plan) AS plan,
          ${PURCHASE_COLUMNS}
        FROM (SELECT 1) AS one
        LEFT JOIN ${one_time_purchases} ON ${one_time_purchases.processorPaymentIntentId} = ${p.paymentIntentId}`,
)

/** A row of READ_PURCHASE: the purchase's columns are NULL when there is none. */
type PurchaseContextRow = PurchaseRow & {
  buyer: Pick<SqlRow<typeof users>, 'id' | 'processor_customer_id'> | null
  plan: PlanRefRow | null
}

/**
 * What recording a one-time payment starts with, in two statements: the payment intent's lock and the
 * buyer's (resolveBuyer's, taken with it), then in one read the buyer (resolveBuyer), the plan selling
 * the price (planForPrice) and the purchase as recorded so far (findPurchase), each as those read it.
 */
export const lockAndReadPurchase = async (
  req: PayloadRequest,
  who: {
    paymentIntentId: string
    userId: string | null | undefined
    email: string | null | undefined
    priceId: string | null | undefined
  },
): Promise<{ buyer: Buyer | null; plan: PlanRef | null; existing: OneTimePurchase | null }> => {
  const ref = buyerRef(who.userId, who.email)
  await run(req, LOCK_PURCHASE, { paymentIntentId: who.paymentIntentId, ...buyerLocks(ref) })
  const [row] = await run(req, READ_PURCHASE, {
    paymentIntentId: who.paymentIntentId,
    ...ref,
    priceId: who.priceId || null,
  })
  return {
    buyer: row?.buyer ? { id: Number(row.buyer.id), processorCustomerId: row.buyer.processor_customer_id } : null,
    plan: row?.plan ? planRefOf(row.plan) : null,
    existing: row?.id != null ? purchaseOf(row) : null,
  }
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

type PurchaseParam =
  | 'user'
  | 'email'
  | 'plan'
  | 'checkoutSessionId'
  | 'customerId'
  | 'chargeId'
  | 'priceId'
  | 'quantity'
  | 'amount'
  | 'currency'
  | 'taxAmount'
  | 'status'
  | 'refundedAmount'
  | 'disputeStatus'
  | 'grantedAt'

const purchaseValues = (data: PurchaseWrite): Record<PurchaseParam, unknown> => ({
  user: data.user,
  email: data.email ?? null,
  plan: data.plan,
  checkoutSessionId: data.processorCheckoutSessionId ?? null,
  customerId: data.processorCustomerId ?? null,
  chargeId: data.processorChargeId ?? null,
  priceId: data.processorPriceId ?? null,
  quantity: data.quantity ?? 1,
  amount: data.amount ?? null,
  currency: data.currency ?? null,
  taxAmount: data.taxAmount ?? null,
  status: data.status,
  refundedAmount: data.refundedAmount ?? 0,
  disputeStatus: data.disputeStatus ?? 'none',
  grantedAt: data.grantedAt ?? null,
})

const INSERT_PURCHASE = statement<PurchaseParam | 'paymentIntentId', PurchaseRow>(
  (p) =>
    sql`INSERT INTO ${one_time_purchases}
          (${bare(one_time_purchases.user, one_time_purchases.email, one_time_purchases.plan, one_time_purchases.processorPaymentIntentId)},
           ${bare(one_time_purchases.processorCheckoutSessionId, one_time_purchases.processorCustomerId, one_time_purchases.processorChargeId)},
           ${bare(one_time_purchases.processorPriceId, one_time_purchases.quantity, one_time_purchases.amount, one_time_purchases.currency, one_time_purchases.status)},
           ${bare(one_time_purchases.refundedAmount, one_time_purchases.disputeStatus, one_time_purchases.grantedAt, one_time_purchases.taxAmount)},
           ${bare(one_time_purchases.updatedAt, one_time_purchases.createdAt)})
        VALUES (${p.user}, ${p.email}, ${p.plan}, ${p.paymentIntentId}, ${p.checkoutSessionId},
          ${p.customerId}, ${p.chargeId}, ${p.priceId}, ${p.quantity}, ${p.amount},
          ${p.currency}, ${p.status}, ${p.refundedAmount}, ${p.disputeStatus},
          ${p.grantedAt}, ${p.taxAmount}, now(), now())
        RETURNING ${PURCHASE_COLUMNS}`,
)

/** Insert a purchase (the caller holds the payment intent's lock and found none). */
export const insertPurchase = async (
  req: PayloadRequest,
  paymentIntentId: string,
  data: PurchaseWrite,
): Promise<OneTimePurchase> => {
  const [row] = await run(req, INSERT_PURCHASE, {
    ...purchaseValues(data),
    paymentIntentId,
  })
  return purchaseOf(row!)
}

const UPDATE_PURCHASE = statement<PurchaseParam | 'id', PurchaseRow>(
  (p) =>
    sql`UPDATE ${one_time_purchases}
        SET ${bare(one_time_purchases.user)} = ${p.user}, ${bare(one_time_purchases.email)} = ${p.email},
          ${bare(one_time_purchases.plan)} = ${p.plan},
          ${bare(one_time_purchases.processorCheckoutSessionId)} = ${p.checkoutSessionId},
          ${bare(one_time_purchases.processorCustomerId)} = ${p.customerId},
          ${bare(one_time_purchases.processorChargeId)} = ${p.chargeId},
          ${bare(one_time_purchases.processorPriceId)} = ${p.priceId},
          ${bare(one_time_purchases.quantity)} = ${p.quantity},
          ${bare(one_time_purchases.amount)} = ${p.amount}, ${bare(one_time_purchases.currency)} = ${p.currency},
          ${bare(one_time_purchases.taxAmount)} = ${p.taxAmount},
          ${bare(one_time_purchases.status)} = ${p.status}, ${bare(one_time_purchases.refundedAmount)} = ${p.refundedAmount},
          ${bare(one_time_purchases.disputeStatus)} = ${p.disputeStatus}, ${bare(one_time_purchases.grantedAt)} = ${p.grantedAt},
          ${bare(one_time_purchases.updatedAt)} = now()
        WHERE ${one_time_purchases.id} = ${p.id}
        RETURNING ${PURCHASE_COLUMNS}`,
)

/** Write a purchase's facts (the caller holds the payment intent's lock and merged them with the row). */
export const updatePurchase = async (
  req: PayloadRequest,
  id: number,
  data: PurchaseWrite,
): Promise<OneTimePurchase> => {
  const [row] = await run(req, UPDATE_PURCHASE, { ...purchaseValues(data), id })
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

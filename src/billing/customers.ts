import type { PayloadRequest } from 'payload'

import type { Plan, User } from '../payload-types'

/** The active plan that sells this price, if any. */
export const planForPrice = async (req: PayloadRequest, priceId: string | null | undefined): Promise<Plan | null> => {
  if (!priceId) return null
  const { docs } = await req.payload.find({
    collection: 'plans',
    where: { or: [{ 'priceIds.monthly': { equals: priceId } }, { 'priceIds.yearly': { equals: priceId } }] },
    limit: 1,
    pagination: false,
    depth: 0,
    req,
  })
  return docs[0] ?? null
}

/**
 * Whose purchase this is: the signed-in buyer named in the checkout metadata, or else the account
 * whose verified email is the checkout email. Null means anonymous: the rows keep the email, and the
 * account that later signs in with that verified email claims them.
 */
export const resolveBuyer = async (
  req: PayloadRequest,
  metadataUserId: string | null | undefined,
  email: string | null | undefined,
): Promise<User | null> => {
  const id = Number(metadataUserId)
  if (metadataUserId && Number.isInteger(id) && id > 0) {
    const byId = await req.payload.find({ collection: 'users', where: { id: { equals: id } }, limit: 1, pagination: false, depth: 0, req })
    if (byId.docs[0]) return byId.docs[0]
  }
  if (!email) return null
  const byEmail = await req.payload.find({
    collection: 'users',
    where: { and: [{ email: { equals: email.toLowerCase() } }, { emailVerified: { equals: true } }] },
    limit: 1,
    pagination: false,
    depth: 0,
    req,
  })
  return byEmail.docs[0] ?? null
}

/**
 * The user's customer at the processor: the one remembered on the user, else the newest
 * subscription's. Checkout reuses it; the billing portal opens it.
 */
export const processorCustomerOf = async (req: PayloadRequest, user: User): Promise<string | null> => {
  if (user.processorCustomerId) return user.processorCustomerId
  const { docs } = await req.payload.find({
    collection: 'user_subscriptions',
    where: { and: [{ user: { equals: user.id } }, { processorCustomerId: { exists: true } }] },
    sort: '-createdAt',
    limit: 1,
    pagination: false,
    depth: 0,
    req,
  })
  return docs[0]?.processorCustomerId ?? null
}

/** Remember the buyer's processor customer, so their next checkout and the portal reuse it. */
export const rememberCustomer = async (req: PayloadRequest, user: User | null, customerId: string | null) => {
  if (!user || !customerId || user.processorCustomerId) return
  await req.payload.update({ collection: 'users', id: user.id, data: { processorCustomerId: customerId }, req, overrideAccess: true, depth: 0 })
}

/**
 * Attach anonymous purchases made with this (verified) email to the account. Runs when a user
 * with a verified email signs in; idempotent.
 */
export const claimPurchases = async (req: PayloadRequest, user: Pick<User, 'id' | 'email'>): Promise<number> => {
  let claimed = 0
  for (const collection of ['one_time_purchases', 'user_subscriptions', 'payment_history', 'licenses'] as const) {
    const result = await req.payload.update({
      collection,
      where: { and: [{ user: { exists: false } }, { email: { equals: user.email.toLowerCase() } }] },
      data: { user: user.id },
      req,
      overrideAccess: true,
      depth: 0,
    })
    claimed += result.docs.length
  }
  return claimed
}

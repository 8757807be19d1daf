import type { Payload, PayloadRequest } from 'payload'

import { ServiceError } from '../http/errors'
import type { User } from '../payload-types'
import { retrieveCheckoutSession } from './checkout-status'
import { lockBuyerEmail } from './store'

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

/**
 * Attach anonymous purchases made with this (verified) email to the account, on `req`'s transaction.
 * Called only by claimOnVerifiedEmail (./claim.ts), when the account gains the verified email;
 * idempotent.
 */
export const claimPurchases = async (req: PayloadRequest, user: Pick<User, 'id' | 'email'>): Promise<number> => {
  await lockBuyerEmail(req, user.email)
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

/**
 * The email of an anonymous checkout (read from the processor, lowercased): where the success page's
 * sign-in link goes, so the account it signs in as is the one that claims the purchase. A malformed
 * or unknown session, one without an email, or an account's checkout (its metadata names the user)
 * is 400 `invalid_request`.
 */
export const anonymousCheckoutEmail = async (payload: Payload, sessionId: string): Promise<string> => {
  const session = await retrieveCheckoutSession(payload, sessionId)
  const email = (session?.customer_details?.email ?? session?.customer_email ?? '').toLowerCase()
  if (!session || !email || session.metadata?.user_id)
    throw new ServiceError(400, 'invalid_request', 'No anonymous checkout with that id.')
  return email
}

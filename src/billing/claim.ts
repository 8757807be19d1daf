import type { CollectionAfterChangeHook } from 'payload'

import type { User } from '../payload-types'
import { claimPurchases } from './customers'

/**
 * Whether this change gives the account a verified address it did not have: a user created verified
 * (OAuth or magic-link sign-up, an admin vouching, the first admin), one whose address becomes
 * verified (a confirmation, magic or reset link, OAuth taking an unverified account over, an admin
 * ticking the box), or a verified user whose address changes (a confirmed email change, an admin).
 */
const gainsVerifiedEmail = (
  doc: Pick<User, 'email' | 'emailVerified'>,
  previous: Partial<Pick<User, 'email' | 'emailVerified'>> | undefined,
  operation: 'create' | 'update',
): boolean => {
  if (!doc.emailVerified) return false
  if (operation === 'create' || !previous?.emailVerified) return true
  return String(previous.email ?? '').toLowerCase() !== doc.email.toLowerCase()
}

/**
 * The one place anonymous purchases are claimed (an afterChange hook on `users`, registered by the
 * billing plugin): when an account gains a verified email, in the transaction (`req`) of the change
 * that verified it, so the account and its purchases are committed together or not at all. Every path
 * that verifies an address writes through Payload's Local or REST API, so this hook sees it; a
 * purchase made later with a verified account's email is the account's from the start (the webhook
 * resolves the buyer by verified email).
 */
export const claimOnVerifiedEmail: CollectionAfterChangeHook<User> = async ({ doc, previousDoc, operation, req }) => {
  if (gainsVerifiedEmail(doc, previousDoc, operation)) await claimPurchases(req, doc)
  return doc
}

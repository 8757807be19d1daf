import type Stripe from 'stripe'

import type { Processor } from './context'
import { invalidRequest } from './errors'
import { requireCheckoutDetails, requireSession, type BuyerEntries } from './state'
import type { FillInEntries, PromotionsConsent } from './types'

const PROMOTIONS_CONSENTS: readonly PromotionsConsent[] = ['opt_in', 'opt_out']

/** Loose on purpose, like a browser's `type="email"`: something, an @, a domain with a dot. */
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/

/** The hosted checkout shows the promotional-emails checkbox only with `consent_collection[promotions]=auto`. */
export const collectsPromotions = (session: Stripe.Checkout.Session): boolean =>
  session.consent_collection?.promotions === 'auto'

/** The buyer's answer to the checkbox, refused where the page does not show it; undefined when not given. */
export const readPromotions = (
  session: Stripe.Checkout.Session,
  promotions: string | undefined,
): PromotionsConsent | undefined => {
  if (promotions === undefined) return undefined
  if (!collectsPromotions(session)) {
    throw invalidRequest(
      `Checkout session ${session.id} does not ask for consent to promotional emails (consent_collection[promotions] is not auto).`,
      { param: 'promotions' },
    )
  }
  const answer = PROMOTIONS_CONSENTS.find((candidate) => candidate === promotions)
  if (!answer) throw invalidRequest(`Invalid promotions: must be one of opt_in or opt_out`, { param: 'promotions' })
  return answer
}

/** An open session only: the page of a paid or expired one takes nothing any more. */
export const requireOpenSession = (processor: Processor, sessionId: string, doing: string): Stripe.Checkout.Session => {
  const session = requireSession(processor.state, sessionId)
  if (session.status !== 'open') {
    const message = `Checkout session ${session.id} is ${session.status ?? 'closed'}; only an open session can be ${doing}.`
    throw invalidRequest(message, { status: 409 })
  }
  return session
}

/** What the buyer typed so far: what the page shows again, and what an expiry may share. */
export const entriesOf = (processor: Processor, sessionId: string): BuyerEntries =>
  requireCheckoutDetails(processor.state, sessionId).entries

/**
 * The buyer types an email and ticks (or not) the promotional-emails box, then leaves without paying.
 * Later entries replace earlier ones; a field not given keeps what was typed before.
 */
export const fillInCheckoutSession = (processor: Processor, sessionId: string, entries: FillInEntries): void => {
  const session = requireOpenSession(processor, sessionId, 'filled in')
  const email = entries.email?.trim() || undefined
  if (email !== undefined && !EMAIL.test(email)) {
    throw invalidRequest(`Invalid email address: ${email}`, { param: 'email' })
  }
  const promotions = readPromotions(session, entries.promotions)
  const details = requireCheckoutDetails(processor.state, session.id)
  details.entries = {
    email: email ?? details.entries.email,
    promotions: promotions ?? details.entries.promotions,
  }
}

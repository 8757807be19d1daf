import type Stripe from 'stripe'

import { entriesOf } from './checkout-entries'
import { addRecoveryUrl } from './checkout-recovery'
import type { Origin, Processor } from './context'
import { invalidRequest } from './errors'
import { nowSeconds } from './ids'
import { requireSession, type BuyerEntries } from './state'

/** How often the stand-in looks for open sessions whose `expires_at` has passed. */
const EXPIRY_SWEEP_MS = 1_000

/**
 * What Stripe shares of an expired session's buyer: the email typed on its page, and only when the
 * buyer consented to promotional emails. Otherwise the details stay as they were.
 */
const sharedCustomerDetails = (
  processor: Processor,
  session: Stripe.Checkout.Session,
  entries: BuyerEntries,
): Stripe.Checkout.Session.CustomerDetails | null => {
  if (entries.promotions !== 'opt_in') return session.customer_details
  const customer = typeof session.customer === 'string' ? processor.state.customers.get(session.customer) : undefined
  // The page shows `customer_email` (or the customer's) in the email field: that is what the buyer left there.
  const email = entries.email ?? session.customer_email ?? customer?.email ?? null
  if (email === null) return session.customer_details
  return {
    address: null,
    business_name: null,
    email,
    individual_name: null,
    name: null,
    phone: null,
    tax_exempt: 'none',
    tax_ids: [],
  }
}

/**
 * `POST /v1/checkout/sessions/:id/expire`, and what the passing of `expires_at` does: an open session
 * becomes `expired` (its page URL with it), with the buyer's consent and, where the session has
 * recovery enabled, its recovery URL; `checkout.session.expired` tells.
 */
export const expireCheckoutSession = (
  processor: Processor,
  sessionId: string,
  origin: Origin = {},
): { session: Stripe.Checkout.Session; events: Stripe.Event[] } => {
  const session = requireSession(processor.state, sessionId)
  if (session.status !== 'open') {
    throw invalidRequest(
      `Only Checkout Sessions with a status in ["open"] can be expired. This Checkout Session has a status of \`${session.status ?? 'null'}\`.`,
    )
  }
  const entries = entriesOf(processor, session.id)
  session.status = 'expired'
  session.url = null
  session.consent = entries.promotions ? { promotions: entries.promotions, terms_of_service: null } : null
  session.customer_details = sharedCustomerDetails(processor, session, entries)
  addRecoveryUrl(processor, session)
  return { session, events: [processor.events.create('checkout.session.expired', session, origin)] }
}

/** Every open session whose `expires_at` has passed, expired: one batch of events per session. */
const expireDueSessions = (processor: Processor): Stripe.Event[][] => {
  const now = nowSeconds()
  return [...processor.state.sessions.values()]
    .filter((session) => session.status === 'open' && session.expires_at <= now)
    .map((session) => expireCheckoutSession(processor, session.id).events)
}

/**
 * Stripe expires a session soon after its `expires_at`; so does the stand-in, by the clock its
 * objects are dated with. Returns what stops the sweep; its timer never keeps the process alive.
 */
export const startExpirySweep = (processor: Processor): (() => void) => {
  const timer = setInterval(() => {
    for (const batch of expireDueSessions(processor)) void processor.events.deliver(batch)
  }, EXPIRY_SWEEP_MS)
  timer.unref()
  return () => clearInterval(timer)
}

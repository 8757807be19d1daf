import { LRUCache } from 'lru-cache'
import type Stripe from 'stripe'

/**
 * Processor objects read once per process and kept, for the reads a request can make: pages (the
 * dashboard's and the pricing table's upgrade offers, the success page) and checkouts. Without them each
 * page view was a processor request, and a signed-in visitor reloading a page could spend the seller's
 * processor rate limit and break everyone's checkout.
 *
 * Concurrent readers of one object share one request. An id the processor does not know is kept as
 * unknown like a found object (a plan pointing at a wrong price costs one read a minute, not one a
 * view); any other failure (a timeout, a 5xx, a 429) is kept FAILURE_TTL_MS, so an outage is not made
 * worse by every page view asking again.
 */

const FAILURE_TTL_MS = 5_000

export type KeptReader<T> = {
  /** The object as the processor has it, or what the processor answered (thrown as it threw it). */
  retrieve: (id: string) => Promise<T>
}

type Kept<T> = { value: T } | { error: unknown }

const isNotFound = (error: unknown) => (error as { statusCode?: number } | null)?.statusCode === 404

const keptReader = <T>(
  read: (id: string) => Promise<T>,
  options: { max: number; ttlMs: number; ttlOf?: (value: T) => number },
): KeptReader<T> => {
  const cache = new LRUCache<string, Kept<T>>({
    max: options.max,
    ttl: options.ttlMs,
    fetchMethod: async (id, _stale, { options: entry }) => {
      try {
        const value = await read(id)
        if (options.ttlOf) entry.ttl = options.ttlOf(value)
        return { value }
      } catch (error) {
        if (!isNotFound(error)) entry.ttl = Math.min(options.ttlMs, FAILURE_TTL_MS)
        return { error }
      }
    },
  })
  return {
    retrieve: async (id) => {
      const kept = await cache.fetch(id)
      if (!kept) throw new Error(`${id} could not be read`)
      if ('error' in kept) throw kept.error
      return kept.value
    },
  }
}

/**
 * How long a price's `active` may be stale: a retired price stops selling within this. Its amount,
 * currency, type and interval never change once it exists.
 */
const PRICE_TTL_MS = 60_000

/** A checkout session that is final (expired, or complete and paid) no longer changes. */
const FINAL_SESSION_TTL_MS = 10 * 60_000
/** An open or unpaid one is read again this often at most (the success page checks again while it waits). */
const OPEN_SESSION_TTL_MS = 2_000

const isFinal = (session: Stripe.Checkout.Session) =>
  session.status === 'expired' ||
  (session.status === 'complete' &&
    (session.payment_status === 'paid' || session.payment_status === 'no_payment_required'))

export const priceReader = (processor: Stripe, ttlMs = PRICE_TTL_MS): KeptReader<Stripe.Price> =>
  // More prices than any catalog has: it bounds memory if ids were ever attacker-chosen.
  keptReader((id) => processor.prices.retrieve(id), { max: 500, ttlMs })

export const checkoutSessionReader = (processor: Stripe): KeptReader<Stripe.Checkout.Session> =>
  keptReader((id) => processor.checkout.sessions.retrieve(id), {
    max: 2_000,
    ttlMs: FINAL_SESSION_TTL_MS,
    ttlOf: (session) => (isFinal(session) ? FINAL_SESSION_TTL_MS : OPEN_SESSION_TTL_MS),
  })

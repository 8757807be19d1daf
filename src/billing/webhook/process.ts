import pLimit from 'p-limit'
import type { Payload } from 'payload'
import type Stripe from 'stripe'

import type { SqlRow } from '../../db/rows'
import { one_time_purchases, processor_events, user_subscriptions, users } from '../../db/schema.generated'
import { run, runOn, runWithLaterWrites, statement } from '../../db/statements'
import { bare, inTransaction, type SQL, sql } from '../../db/transaction'
import type { BillingSettings } from '../purchases'
import { EVENT_HANDLERS } from './events'

export type ProcessOutcome = 'processed' | 'duplicate' | 'ignored'

const MAX_ERROR_LENGTH = 2_000

/**
 * A one-line description of a failure for the event log and the logs. Query failures name the
 * database's own error, never the query's parameters (they hold emails and license keys).
 */
const describeError = (error: unknown): string => {
  if (!(error instanceof Error)) return String(error).slice(0, MAX_ERROR_LENGTH)
  const cause = error.cause instanceof Error ? error.cause : null
  const message = cause ? `${cause.name}: ${cause.message}` : `${error.name}: ${error.message}`
  return message.split('\nparams:')[0]!.slice(0, MAX_ERROR_LENGTH)
}

/**
 * Events this process applies at once; further deliveries wait their turn (holding no lock and no
 * connection: their event is recorded first). Four keep both cores busy with a burst of purchases, and a
 * burst of hundreds leaves the rest of the process (the pages, the downloads) its share of the event loop
 * instead of running hundreds of transactions side by side. Every process has its own turn-taking;
 * exactly once never depended on it (the event's row lock does that).
 */
export const APPLYING_AT_ONCE = 4
const applying = pLimit(APPLYING_AT_ONCE)

const objectIdOf = (event: Stripe.Event): string | null => {
  const object: object = event.data.object
  return 'id' in object && typeof object.id === 'string' ? object.id : null
}

/** The processor customer an event is about: its object's `customer`, or the customer itself. */
const customerOf = (event: Stripe.Event): string | null => {
  const object = event.data.object as { object?: unknown; id?: unknown; customer?: unknown }
  if (object.object === 'customer') return typeof object.id === 'string' ? object.id : null
  const customer = object.customer
  if (typeof customer === 'string') return customer
  return customer && typeof customer === 'object' && 'id' in customer && typeof customer.id === 'string'
    ? customer.id
    : null
}

/** Whether `customer` (NULL: none) belongs to an erased account: remembered on it, or on one of its purchases or subscriptions. */
const erasedCustomer = (customer: SQL) =>
  sql`EXISTS (SELECT 1 FROM ${users} WHERE ${users.deletion_erasedAt} IS NOT NULL AND (
          ${users.processorCustomerId} = ${customer}
          OR ${users.id} IN (SELECT ${one_time_purchases.user} FROM ${one_time_purchases} WHERE ${one_time_purchases.processorCustomerId} = ${customer})
          OR ${users.id} IN (SELECT ${user_subscriptions.user} FROM ${user_subscriptions} WHERE ${user_subscriptions.processorCustomerId} = ${customer})))`

type EventStatus = Pick<SqlRow<typeof processor_events>, 'status'>

const RECORD_EVENT = statement<
  'eventId' | 'type' | 'livemode' | 'status' | 'objectId' | 'customer' | 'payload',
  EventStatus
>(
  (p) =>
    sql`INSERT INTO ${processor_events}
          (${bare(processor_events.eventId, processor_events.type, processor_events.livemode, processor_events.status, processor_events.attempts)},
           ${bare(processor_events.objectId, processor_events.receivedAt, processor_events.payload, processor_events.updatedAt, processor_events.createdAt)})
        VALUES (${p.eventId}, ${p.type}, ${p.livemode}, ${p.status}, 0, ${p.objectId}, now(),
          -- A customer of an erased account (src/privacy/erasure.ts): its name, email and address are not kept
          -- again. Three probes of indexed columns, in this one statement.
          CASE WHEN ${erasedCustomer(sql`${p.customer}::varchar`)}
            THEN jsonb_build_object('id', ${p.eventId}::text, 'type', ${p.type}::text, 'erased', true)
            ELSE ${p.payload}::jsonb END,
          now(), now())
        ON CONFLICT (${bare(processor_events.eventId)}) DO UPDATE SET ${bare(processor_events.updatedAt)} = ${processor_events.updatedAt}
        RETURNING ${processor_events.status}`,
)

const LOCK_EVENT = statement<'eventId', EventStatus>(
  (p) =>
    sql`SELECT ${processor_events.status} FROM ${processor_events} WHERE ${processor_events.eventId} = ${p.eventId} FOR UPDATE`,
)

const MARK_PROCESSED = statement<'eventId'>(
  (p) =>
    sql`UPDATE ${processor_events}
        SET ${bare(processor_events.status)} = 'processed', ${bare(processor_events.processedAt)} = now(),
          ${bare(processor_events.attempts)} = ${processor_events.attempts} + 1, ${bare(processor_events.lastError)} = NULL,
          ${bare(processor_events.updatedAt)} = now()
        WHERE ${processor_events.eventId} = ${p.eventId}`,
)

const MARK_FAILED = statement<'eventId' | 'message'>(
  (p) =>
    sql`UPDATE ${processor_events}
        SET ${bare(processor_events.status)} = 'failed', ${bare(processor_events.attempts)} = ${processor_events.attempts} + 1,
          ${bare(processor_events.lastError)} = ${p.message}, ${bare(processor_events.updatedAt)} = now()
        WHERE ${processor_events.eventId} = ${p.eventId} AND ${processor_events.status} <> 'processed'`,
)

/**
 * Apply one verified processor event exactly once:
 * 1. record it in processor_events (insert-or-nothing on the unique event id);
 * 2. read the current objects from the processor, outside any transaction;
 * 3. in one transaction: lock the event's row, stop if another delivery already processed it,
 *    apply every effect, mark it processed.
 * A failure rolls the effects back, marks the event failed with its error, and is re-thrown so the
 * webhook answers 500 and the processor retries.
 */
export const processEvent = async (
  payload: Payload,
  processor: Stripe,
  event: Stripe.Event,
  settings: BillingSettings,
): Promise<ProcessOutcome> => {
  const handler = EVENT_HANDLERS[event.type]
  const [row] = await runOn(payload, undefined, RECORD_EVENT, {
    eventId: event.id,
    type: event.type,
    livemode: event.livemode,
    status: handler ? 'received' : 'ignored',
    objectId: objectIdOf(event),
    customer: customerOf(event),
    payload: JSON.stringify(event),
  })
  const recorded = row?.status
  if (!handler) return 'ignored'
  if (recorded === 'processed' || recorded === 'ignored') return 'duplicate'

  try {
    return await applying(async () => {
      const apply = await handler.load(processor, event)
      return await inTransaction(
        payload,
        async (req) => {
          const [row] = await run(req, LOCK_EVENT, { eventId: event.id })
          if (row?.status === 'processed') return 'duplicate' as const
          await apply({ req, settings })
          // The analytics events and jobs the effects kept for later go out with this last statement.
          await runWithLaterWrites(req, MARK_PROCESSED, { eventId: event.id })
          return 'processed' as const
        },
        { laterWrites: true },
      )
    })
  } catch (error) {
    const message = describeError(error)
    await runOn(payload, undefined, MARK_FAILED, { eventId: event.id, message }).catch(() => undefined)
    payload.logger.error({ msg: 'processor event failed', eventId: event.id, eventType: event.type, error: message })
    throw error
  }
}

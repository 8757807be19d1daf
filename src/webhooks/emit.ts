import crypto from 'node:crypto'

import type { PayloadRequest } from 'payload'

import type { SqlRow } from '../db/rows'
import { webhook_endpoints, webhook_endpoints_events, webhook_events } from '../db/schema.generated'
import { run, statement } from '../db/statements'
import { bare, type SQL, sql } from '../db/transaction'
import { queueJob } from '../jobs/queue'
import { WEBHOOKS_QUEUE, type WebhookEventType } from './events'

type Data = Record<string, unknown>

export type WebhookEventInput = {
  type: WebhookEventType
  /**
   * What makes this event unique (such as `license.created:12`): the same fact reported again (a
   * processor event delivered twice, two events of one payment) is sent once.
   */
  sourceKey: string
  /** The event's `data`, built only when some endpoint wants the event. */
  data: () => Data | Promise<Data>
  occurredAt?: Date
  /**
   * The endpoints that want this type, when the caller read them in its own statement, in this
   * transaction (`endpointsWanting`): no statement of its own to ask.
   */
  endpoints?: readonly number[]
}

/**
 * The ids of the enabled endpoints that subscribe to `type`, as an integer array: a column of a statement
 * that reads (or writes) something else, handed to emitWebhookEvent as `endpoints`.
 */
export const endpointsWanting = (type: SQL) =>
  sql`ARRAY(SELECT ${webhook_endpoints.id} FROM ${webhook_endpoints}
        WHERE ${webhook_endpoints.enabled} = true
          AND EXISTS (SELECT 1 FROM ${webhook_endpoints_events}
                      WHERE ${webhook_endpoints_events.parent} = ${webhook_endpoints.id} AND ${webhook_endpoints_events.value} = ${type})
        ORDER BY ${webhook_endpoints.id})`

const ENDPOINTS_WANTING = statement<'type', { ids: number[] }>((p) => sql`SELECT ${endpointsWanting(p.type)} AS ids`)

const INSERT_EVENT = statement<'eventId' | 'type' | 'sourceKey' | 'body', Pick<SqlRow<typeof webhook_events>, 'id'>>(
  (p) =>
    sql`INSERT INTO ${webhook_events} (${bare(webhook_events.eventId, webhook_events.type, webhook_events.sourceKey, webhook_events.body)},
          ${bare(webhook_events.updatedAt, webhook_events.createdAt)})
        VALUES (${p.eventId}, ${p.type}, ${p.sourceKey}, ${p.body}, now(), now())
        ON CONFLICT (${bare(webhook_events.sourceKey)}) DO NOTHING
        RETURNING ${webhook_events.id}`,
)

/** An event id as Standard Webhooks' examples spell them: `msg_` and 128 random bits. */
export const newEventId = (): string => `msg_${crypto.randomBytes(16).toString('base64url')}`

/** The body every attempt sends and signs, as one string: `{type, timestamp, data}`. */
export const eventBody = (type: string, occurredAt: Date, data: Data): string =>
  JSON.stringify({ type, timestamp: occurredAt.toISOString(), data })

/**
 * Enqueue an event for every enabled endpoint that subscribes to its type, in the transaction of the
 * change it reports (`req`): a change rolled back sends nothing, and one committed has its deliveries
 * queued with it. With no endpoint subscribed it costs one query (none when the caller read the
 * endpoints: `endpoints`) and stores nothing. Returns the
 * event's id, or null when nothing was enqueued (no endpoint, or this fact was sent already).
 */
export const emitWebhookEvent = async (req: PayloadRequest, event: WebhookEventInput): Promise<string | null> => {
  const endpoints = event.endpoints ?? (await run(req, ENDPOINTS_WANTING, { type: event.type }))[0]?.ids ?? []
  if (endpoints.length === 0) return null
  const eventId = newEventId()
  const body = eventBody(event.type, event.occurredAt ?? new Date(), await event.data())
  const [inserted] = await run(req, INSERT_EVENT, { eventId, type: event.type, sourceKey: event.sourceKey, body })
  if (!inserted) return null
  for (const endpoint of endpoints) {
    await queueJob(req, {
      task: 'deliverWebhook',
      queue: WEBHOOKS_QUEUE,
      input: { event: inserted.id, endpoint: Number(endpoint), attempt: 1 },
    })
  }
  return eventId
}

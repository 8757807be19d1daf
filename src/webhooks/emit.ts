import crypto from 'node:crypto'

import type { PayloadRequest } from 'payload'

import type { SqlRow } from '../db/rows'
import { webhook_endpoints, webhook_endpoints_events, webhook_events } from '../db/schema.generated'
import { bare, execute, sql } from '../db/transaction'
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
}

/** An event id as Standard Webhooks' examples spell them: `msg_` and 128 random bits. */
export const newEventId = (): string => `msg_${crypto.randomBytes(16).toString('base64url')}`

/** The body every attempt sends and signs, as one string: `{type, timestamp, data}`. */
export const eventBody = (type: string, occurredAt: Date, data: Data): string =>
  JSON.stringify({ type, timestamp: occurredAt.toISOString(), data })

/**
 * Enqueue an event for every enabled endpoint that subscribes to its type, in the transaction of the
 * change it reports (`req`): a change rolled back sends nothing, and one committed has its deliveries
 * queued with it. With no endpoint subscribed it costs one query and stores nothing. Returns the
 * event's id, or null when nothing was enqueued (no endpoint, or this fact was sent already).
 */
export const emitWebhookEvent = async (req: PayloadRequest, event: WebhookEventInput): Promise<string | null> => {
  const endpoints = await execute<Pick<SqlRow<typeof webhook_endpoints>, 'id'>>(
    req,
    sql`SELECT ${webhook_endpoints.id} FROM ${webhook_endpoints}
        WHERE ${webhook_endpoints.enabled} = true
          AND EXISTS (SELECT 1 FROM ${webhook_endpoints_events}
                      WHERE ${webhook_endpoints_events.parent} = ${webhook_endpoints.id} AND ${webhook_endpoints_events.value} = ${event.type})`,
  )
  if (endpoints.length === 0) return null
  const eventId = newEventId()
  const body = eventBody(event.type, event.occurredAt ?? new Date(), await event.data())
  const [inserted] = await execute<Pick<SqlRow<typeof webhook_events>, 'id'>>(
    req,
    sql`INSERT INTO ${webhook_events} (${bare(webhook_events.eventId, webhook_events.type, webhook_events.sourceKey, webhook_events.body)},
          ${bare(webhook_events.updatedAt, webhook_events.createdAt)})
        VALUES (${eventId}, ${event.type}, ${event.sourceKey}, ${body}, now(), now())
        ON CONFLICT (${bare(webhook_events.sourceKey)}) DO NOTHING
        RETURNING ${webhook_events.id}`,
  )
  if (!inserted) return null
  for (const endpoint of endpoints) {
    await req.payload.jobs.queue({
      task: 'deliverWebhook',
      queue: WEBHOOKS_QUEUE,
      input: { event: inserted.id, endpoint: Number(endpoint.id), attempt: 1 },
      req,
    })
  }
  return eventId
}

import type { PayloadRequest } from 'payload'

import { webhook_endpoints } from '../db/schema.generated'
import { bare, execute, inTransaction, isoTimestamp, sql } from '../db/transaction'
import { ServiceError } from '../http/errors'
import type { WebhookDelivery } from '../payload-types'
import { recordAudit } from './audit'
import { type DeliveryOptions, deliverNow, findEndpoint, findEvent } from '../webhooks/deliver'
import { eventBody, newEventId } from '../webhooks/emit'
import { PREVIOUS_SECRET_TTL_MS, TEST_EVENT_TYPE } from '../webhooks/events'
import { currentSecret, generateSigningSecret, sealSecret } from '../webhooks/secrets'

const endpointNotFound = () =>
  new ServiceError(404, 'webhook_endpoint_not_found', 'There is no webhook endpoint with this id.')

const withActor = <T>(req: PayloadRequest, work: (tx: PayloadRequest) => Promise<T>) =>
  inTransaction(req.payload, (tx) => {
    tx.user = req.user
    return work(tx)
  })

/**
 * The signing secret of a new endpoint, shown once: the first call marks it shown in the same UPDATE
 * that reads it, so two admins (or two tabs) cannot both see it. Later calls are 409: rotate instead.
 */
export const revealSecret = (req: PayloadRequest, id: number): Promise<{ secret: string }> =>
  withActor(req, async (tx) => {
    // WHERE is checked again on the row a concurrent reveal committed: only one of two gets it.
    const [row] = await execute<{ secret: string | null }>(
      tx,
      sql`UPDATE ${webhook_endpoints} SET ${bare(webhook_endpoints.secretShownAt)} = now()
          WHERE ${webhook_endpoints.id} = ${id} AND ${webhook_endpoints.secretShownAt} IS NULL
          RETURNING ${webhook_endpoints.secretSealed} AS secret`,
    )
    if (!row?.secret) {
      const [exists] = await execute(tx, sql`SELECT 1 FROM ${webhook_endpoints} WHERE ${webhook_endpoints.id} = ${id}`)
      if (!exists) throw endpointNotFound()
      throw new ServiceError(
        409,
        'secret_already_shown',
        'This secret was shown once already. Rotate it to get a new one.',
      )
    }
    await recordAudit(tx, {
      action: 'webhook_endpoint.reveal_secret',
      targetCollection: 'webhook_endpoints',
      targetId: String(id),
      reason: null,
      before: null,
      after: null,
    })
    return { secret: currentSecret(tx.payload.secret, { secretSealed: row.secret })! }
  })

/**
 * A new signing secret, shown once. The one before it keeps signing for 24 hours beside it (each
 * delivery carries both signatures), so a receiver switches without losing an event.
 */
export const rotateSecret = (
  req: PayloadRequest,
  id: number,
): Promise<{ secret: string; previousSecretExpiresAt: string }> =>
  withActor(req, async (tx) => {
    const secret = generateSigningSecret()
    const expires = new Date(Date.now() + PREVIOUS_SECRET_TTL_MS)
    // An alias of a timestamp column, typed as SqlRow types one; never null (set by this UPDATE).
    const [row] = await execute<{ expires: Date | string }>(
      tx,
      sql`UPDATE ${webhook_endpoints} SET ${bare(webhook_endpoints.previousSecretSealed)} = ${webhook_endpoints.secretSealed},
            ${bare(webhook_endpoints.previousSecretExpiresAt)} = ${expires.toISOString()},
            ${bare(webhook_endpoints.secretSealed)} = ${sealSecret(tx.payload.secret, secret)},
            ${bare(webhook_endpoints.secretShownAt)} = now(), ${bare(webhook_endpoints.updatedAt)} = now()
          WHERE ${webhook_endpoints.id} = ${id}
          RETURNING ${webhook_endpoints.previousSecretExpiresAt} AS expires`,
    )
    if (!row) throw endpointNotFound()
    await recordAudit(tx, {
      action: 'webhook_endpoint.rotate_secret',
      targetCollection: 'webhook_endpoints',
      targetId: String(id),
      reason: null,
      before: null,
      after: { previousSecretExpiresAt: expires.toISOString() },
    })
    return { secret, previousSecretExpiresAt: isoTimestamp(row.expires)! }
  })

/** What an admin's action answers about the attempt it made. */
const deliveryView = (delivery: WebhookDelivery) => ({
  id: delivery.id,
  outcome: delivery.outcome,
  responseStatus: delivery.responseStatus ?? null,
  durationMs: delivery.durationMs ?? null,
  error: delivery.error ?? null,
})

/**
 * "Send test event": a `webhook.test` event, signed and sent now to this endpoint only (enabled or
 * not), answered with what the receiver said. Its delivery row shows it like any other.
 */
export const sendTestEvent = async (req: PayloadRequest, id: number, options: DeliveryOptions) => {
  const endpoint = await findEndpoint(req.payload, id)
  if (!endpoint) throw endpointNotFound()
  const eventId = newEventId()
  const event = await req.payload.create({
    collection: 'webhook_events',
    data: {
      eventId,
      type: TEST_EVENT_TYPE,
      sourceKey: `test:${eventId}`,
      body: eventBody(TEST_EVENT_TYPE, new Date(), {
        endpointId: endpoint.id,
        message: 'A test event sent from the admin. It reports no change.',
      }),
    },
    overrideAccess: true,
    depth: 0,
  })
  return { eventId, delivery: deliveryView(await deliverNow(req.payload, event, endpoint, 'test', options)) }
}

/** "Send again": the delivery's event, with its id, to its endpoint once more, now. */
export const sendAgain = async (req: PayloadRequest, deliveryId: number, options: DeliveryOptions) => {
  const notFound = new ServiceError(404, 'webhook_delivery_not_found', 'There is no webhook delivery with this id.')
  const delivery = await req.payload.findByID({
    collection: 'webhook_deliveries',
    id: deliveryId,
    depth: 0,
    overrideAccess: true,
    disableErrors: true,
  })
  if (!delivery) throw notFound
  const endpointId = typeof delivery.endpoint === 'object' ? delivery.endpoint?.id : delivery.endpoint
  const eventRowId = typeof delivery.event === 'object' ? delivery.event.id : delivery.event
  const endpoint = endpointId ? await findEndpoint(req.payload, endpointId) : null
  if (!endpoint)
    throw new ServiceError(
      409,
      'webhook_endpoint_deleted',
      "This delivery's endpoint was deleted: there is nowhere to send it.",
    )
  const event = await findEvent(req.payload, eventRowId)
  if (!event) throw notFound
  return {
    eventId: event.eventId,
    delivery: deliveryView(await deliverNow(req.payload, event, endpoint, 'manual', options)),
  }
}

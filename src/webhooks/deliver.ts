import escapeHtml from 'escape-html'
import type { Payload, PayloadRequest, TaskConfig } from 'payload'
import { Webhook } from 'standardwebhooks'

import { webhook_endpoints } from '../db/schema.generated'
import { bare, execute, inTransaction, sql } from '../db/transaction'
import { queueEmailToAdmins } from '../email/send-task'
import type { WebhookDelivery, WebhookEndpoint, WebhookEvent } from '../payload-types'
import { FAILED_EVENTS_TO_DISABLE, MAX_ATTEMPTS, retryDelayMs, WEBHOOKS_QUEUE } from './events'
import { postWebhook, type SendOutcome } from './send'
import { signingSecrets, UNREADABLE_SECRET } from './secrets'

export type DeliveryOptions = {
  /** WEBHOOK_ALLOW_PRIVATE: http and private addresses allowed (staging, tests). */
  allowPrivate: boolean
  /** How long a receiver may take (WEBHOOK_TIMEOUT_MS, 10 s). */
  timeoutMs: number
  /** The wait after the first failed attempt (10 s), doubled after each next one. */
  retryBaseMs: number
  productName: string
  serverUrl: string
}

type Trigger = WebhookDelivery['trigger']

const findEndpoint = (payload: Payload, id: number, req?: PayloadRequest) =>
  payload.findByID({
    collection: 'webhook_endpoints',
    id,
    depth: 0,
    overrideAccess: true,
    showHiddenFields: true,
    disableErrors: true,
    req,
  })

const findEvent = (payload: Payload, id: number, req?: PayloadRequest) =>
  payload.findByID({ collection: 'webhook_events', id, depth: 0, overrideAccess: true, disableErrors: true, req })

/**
 * One attempt: the event's exact body, signed as Standard Webhooks specify with each secret that signs
 * now (`webhook-signature: v1,<sig> [v1,<previous secret's sig>]`), POSTed through the address guard.
 */
const sendEvent = async (
  payload: Payload,
  event: WebhookEvent,
  endpoint: WebhookEndpoint,
  options: DeliveryOptions,
): Promise<SendOutcome> => {
  const timestamp = new Date()
  let secrets: string[]
  try {
    secrets = signingSecrets(payload.secret, endpoint, timestamp)
  } catch {
    return { ok: false, status: null, durationMs: 0, excerpt: null, error: 'secret', message: UNREADABLE_SECRET }
  }
  const signature = secrets.map((secret) => new Webhook(secret).sign(event.eventId, timestamp, event.body)).join(' ')
  const headers = {
    'webhook-id': event.eventId,
    'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
    'webhook-signature': signature,
  }
  return postWebhook(endpoint.url, event.body, headers, {
    timeoutMs: options.timeoutMs,
    allowPrivate: options.allowPrivate,
  })
}

const recordAttempt = (
  req: PayloadRequest,
  {
    event,
    endpoint,
    attempt,
    trigger,
    outcome,
    nextAttemptAt,
  }: {
    event: WebhookEvent
    endpoint: WebhookEndpoint
    attempt: number
    trigger: Trigger
    outcome: SendOutcome
    nextAttemptAt?: Date | null
  },
) =>
  req.payload.create({
    collection: 'webhook_deliveries',
    data: {
      event: event.id,
      endpoint: endpoint.id,
      eventType: event.type,
      url: endpoint.url,
      attempt,
      trigger,
      outcome: outcome.ok ? 'succeeded' : 'failed',
      responseStatus: outcome.status,
      durationMs: outcome.durationMs,
      error: outcome.ok ? null : outcome.message,
      responseExcerpt: outcome.excerpt,
      nextAttemptAt: nextAttemptAt?.toISOString() ?? null,
    },
    req,
    overrideAccess: true,
    depth: 0,
  })

/** A delivery that worked: the endpoint's receiver works, its count of failed events starts again. */
const resetFailures = (req: PayloadRequest, endpointId: number) =>
  execute(
    req,
    sql`UPDATE ${webhook_endpoints} SET ${bare(webhook_endpoints.failedEventsInARow)} = 0
        WHERE ${webhook_endpoints.id} = ${endpointId} AND ${webhook_endpoints.failedEventsInARow} <> 0`,
  )

const disabledEmail = (options: DeliveryOptions, endpoint: WebhookEndpoint, lastError: string | null) => {
  const link = `${options.serverUrl}/admin/collections/webhook_endpoints/${endpoint.id}`
  const subject = `${options.productName}: webhook endpoint turned off (${new URL(endpoint.url).host})`
  const lead = `The last ${FAILED_EVENTS_TO_DISABLE} events to ${endpoint.url} failed every attempt, so the endpoint was turned off and gets nothing until it is turned back on.`
  const cause = lastError ? `The last attempt: ${lastError}` : ''
  const how =
    "Fix the receiver, send it a test event from the endpoint's page, then turn it back on there. Each failed event can be sent again from its delivery."
  const text = ['Hi,', '', lead, cause, '', how, link, '', options.productName]
    .filter((line, index, all) => line !== '' || all[index - 1] !== '')
    .join('\n')
  const html = `<p>Hi,</p>
<p>${escapeHtml(lead)}</p>
${cause ? `<p>${escapeHtml(cause)}</p>` : ''}
<p>${escapeHtml(how)}</p>
<p><a href="${escapeHtml(link)}">Open the endpoint</a></p>
<p>${escapeHtml(options.productName)}</p>`
  return { subject, text, html }
}

/**
 * An event failed its last attempt: one more failed event in a row for the endpoint, counted in one
 * UPDATE (two servers finishing two events at once count both). The one that reaches the limit turns
 * the endpoint off, and only that one emails the admins.
 */
const countFailedEvent = async (
  req: PayloadRequest,
  endpoint: WebhookEndpoint,
  lastError: string | null,
  options: DeliveryOptions,
) => {
  // A numeric column: pg hands it back as a string.
  const [counted] = await execute<{ failed: string | number }>(
    req,
    sql`UPDATE ${webhook_endpoints} SET ${bare(webhook_endpoints.failedEventsInARow)} = COALESCE(${webhook_endpoints.failedEventsInARow}, 0) + 1
        WHERE ${webhook_endpoints.id} = ${endpoint.id} RETURNING ${webhook_endpoints.failedEventsInARow} AS failed`,
  )
  if (!counted || Number(counted.failed) < FAILED_EVENTS_TO_DISABLE) return
  const disabled = await execute(
    req,
    sql`UPDATE ${webhook_endpoints} SET ${bare(webhook_endpoints.enabled)} = false, ${bare(webhook_endpoints.disabledAt)} = now(), ${bare(webhook_endpoints.updatedAt)} = now()
        WHERE ${webhook_endpoints.id} = ${endpoint.id} AND ${webhook_endpoints.enabled} = true RETURNING ${webhook_endpoints.id}`,
  )
  if (disabled.length === 0) return
  req.payload.logger.warn({
    msg: 'webhook endpoint turned off after failed events',
    endpoint: endpoint.id,
    failedEvents: Number(counted.failed),
  })
  await queueEmailToAdmins(req, disabledEmail(options, endpoint, lastError))
}

/** Attempt `attempt` of an event to an endpoint, queued in the change's transaction (./emit.ts) or by the attempt before. */
export const deliverWebhookTask = (options: DeliveryOptions): TaskConfig<'deliverWebhook'> => ({
  slug: 'deliverWebhook',
  label: 'Send a webhook event to an endpoint',
  inputSchema: [
    { name: 'event', type: 'number', required: true },
    { name: 'endpoint', type: 'number', required: true },
    { name: 'attempt', type: 'number', required: true },
  ],
  // The attempts are this task's own (each a job, waiting its backoff); Payload's retries only cover a
  // failure to record an attempt (the database), where sending again with the same id is safe.
  retries: { attempts: 3, backoff: { type: 'exponential', delay: options.retryBaseMs } },
  handler: async ({ input, req }) => {
    const { payload } = req
    const endpoint = await findEndpoint(payload, input.endpoint)
    const event = await findEvent(payload, input.event)
    // An endpoint deleted, turned off or no longer subscribed gets nothing more; its deliveries show what was sent.
    if (!endpoint || !event || !endpoint.enabled || !(endpoint.events ?? []).includes(event.type as never)) {
      return { output: { sent: false } }
    }
    const outcome = await sendEvent(payload, event, endpoint, options)
    await inTransaction(payload, async (tx) => {
      if (outcome.ok) {
        await recordAttempt(tx, { event, endpoint, attempt: input.attempt, trigger: 'automatic', outcome })
        await resetFailures(tx, endpoint.id)
        return
      }
      if (input.attempt < MAX_ATTEMPTS) {
        const nextAttemptAt = new Date(Date.now() + retryDelayMs(input.attempt, options.retryBaseMs))
        await recordAttempt(tx, {
          event,
          endpoint,
          attempt: input.attempt,
          trigger: 'automatic',
          outcome,
          nextAttemptAt,
        })
        await tx.payload.jobs.queue({
          task: 'deliverWebhook',
          queue: WEBHOOKS_QUEUE,
          input: { event: event.id, endpoint: endpoint.id, attempt: input.attempt + 1 },
          waitUntil: nextAttemptAt,
          req: tx,
        })
        return
      }
      await recordAttempt(tx, { event, endpoint, attempt: input.attempt, trigger: 'automatic', outcome })
      await countFailedEvent(tx, endpoint, outcome.message, options)
    })
    return { output: { sent: outcome.ok } }
  },
})

/** The last attempt number of an event to an endpoint, so "Send again" numbers its own. */
const lastAttempt = async (req: PayloadRequest, eventId: number, endpointId: number): Promise<number> => {
  const last = await req.payload.find({
    collection: 'webhook_deliveries',
    where: { and: [{ event: { equals: eventId } }, { endpoint: { equals: endpointId } }] },
    sort: '-attempt',
    limit: 1,
    depth: 0,
    pagination: false,
    overrideAccess: true,
    req,
  })
  return last.docs[0]?.attempt ?? 0
}

/**
 * An admin's attempt ("Send again", "Send test event"), sent now and answered with its outcome. It
 * works on a turned-off endpoint (to try a fixed receiver before turning it back on) and counts no
 * failure; a success clears the endpoint's count of failed events.
 */
export const deliverNow = async (
  payload: Payload,
  event: WebhookEvent,
  endpoint: WebhookEndpoint,
  trigger: Exclude<Trigger, 'automatic'>,
  options: DeliveryOptions,
): Promise<WebhookDelivery> => {
  const outcome = await sendEvent(payload, event, endpoint, options)
  return inTransaction(payload, async (tx) => {
    const attempt = (await lastAttempt(tx, event.id, endpoint.id)) + 1
    const delivery = await recordAttempt(tx, { event, endpoint, attempt, trigger, outcome })
    if (outcome.ok) await resetFailures(tx, endpoint.id)
    return delivery
  })
}

export { findEndpoint, findEvent }

import type Stripe from 'stripe'

import { fromFixture } from './fixtures'
import { newId, nowSeconds } from './ids'
import { signPayload } from './signing'
import type { StandInEventRecord, WebhookDelivery } from './types'

/** The version whose shapes the stand-in answers with (the one stripe@23 pins). */
export const API_VERSION = '2026-10-28.endive'
const DELIVERY_TIMEOUT_MS = 10_000

/** The API request an event came from; events of processor-side actions get a request ID of their own. */
export type EventRequest = { id: string; idempotencyKey: string | null }

export type EventLogConfig = {
  webhookSecret: string
  webhookUrl: string | null
  livemode: boolean
  random: () => number
  log: (line: string) => void
  /** Stripe retries a delivery that got no 2xx answer; these are the waits before each retry. None by default. */
  retryDelaysMs?: readonly number[]
}

/**
 * `data.previous_attributes` of an `*.updated` event: the earlier value of every top-level field that
 * changed, compared with a deep copy taken before the change.
 */
export const previousAttributes = (before: object, after: object): Record<string, unknown> => {
  const earlier = before as Record<string, unknown>
  const later = after as Record<string, unknown>
  const changed: Record<string, unknown> = {}
  for (const key of Object.keys(earlier)) {
    if (JSON.stringify(earlier[key]) !== JSON.stringify(later[key])) changed[key] = earlier[key]
  }
  return changed
}

/** Fisher-Yates with the injected random source, so a seed reproduces an order. */
const shuffled = <T>(items: T[], random: () => number): T[] => {
  const result = [...items]
  for (let index = result.length - 1; index > 0; index -= 1) {
    const other = Math.floor(random() * (index + 1))
    ;[result[index], result[other]] = [result[other] as T, result[index] as T]
  }
  return result
}

/**
 * Every event the stand-in created, and its webhook deliveries. Stripe guarantees neither order nor
 * exactly-once delivery, so the events of one action go out in a random order. A failed delivery is
 * retried only when `retryDelaysMs` says so (development and the browser scenarios, as Stripe retries);
 * otherwise a test asks for a redelivery when it wants one.
 */
export class EventLog {
  private readonly records = new Map<string, StandInEventRecord>()
  private readonly inFlight = new Set<Promise<unknown>>()
  private readonly closing = new AbortController()

  constructor(private readonly config: EventLogConfig) {}

  setWebhookUrl(url: string | null): void {
    this.config.webhookUrl = url
  }

  /** The object is copied now: a later change to it does not show in this event, as with Stripe. */
  create(
    type: Stripe.Event.Type,
    object: object,
    options: { previousAttributes?: object; request?: EventRequest } = {},
  ): Stripe.Event {
    const event = fromFixture<Stripe.Event>('event', {
      id: newId('evt'),
      api_version: API_VERSION,
      created: nowSeconds(),
      data: {
        object: structuredClone(object),
        ...(options.previousAttributes ? { previous_attributes: structuredClone(options.previousAttributes) } : {}),
      },
      livemode: this.config.livemode,
      pending_webhooks: 1,
      request: { id: options.request?.id ?? newId('req'), idempotency_key: options.request?.idempotencyKey ?? null },
      type,
    })
    this.records.set(event.id, { event, deliveries: [] })
    return event
  }

  list(): StandInEventRecord[] {
    return [...this.records.values()]
  }

  /** Sends one action's events one after the other in a shuffled order; resolves with that order. */
  deliver(batch: Stripe.Event[]): Promise<Stripe.Event[]> {
    return this.track(this.deliverInOrder(shuffled(batch, this.config.random)))
  }

  /** For events caused by an API call: Stripe answers the call first and delivers afterwards. */
  deliverLater(batch: Stripe.Event[]): void {
    if (batch.length > 0) void this.deliver(batch)
  }

  async redeliver(eventId: string): Promise<{ status: number | null }> {
    const record = this.records.get(eventId)
    if (!record) throw new Error(`No such event: '${eventId}'`)
    const delivery = await this.track(this.post(record))
    return { status: delivery?.status ?? null }
  }

  async settled(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight])
  }

  /** Abandons deliveries still waiting for an answer. */
  close(): void {
    this.closing.abort()
  }

  private track<T>(promise: Promise<T>): Promise<T> {
    this.inFlight.add(promise)
    void promise.finally(() => this.inFlight.delete(promise)).catch(() => undefined)
    return promise
  }

  private async deliverInOrder(events: Stripe.Event[]): Promise<Stripe.Event[]> {
    for (const event of events) {
      const record = this.records.get(event.id)
      if (record) this.retryOnFailure(record, await this.post(record), 0)
    }
    return events
  }

  /** As Stripe does: a delivery without a 2xx answer is sent again later (when retries are configured). */
  private retryOnFailure(record: StandInEventRecord, delivery: WebhookDelivery | undefined, retry: number): void {
    const delay = this.config.retryDelaysMs?.[retry]
    if (
      !delivery ||
      (delivery.status !== null && delivery.status < 300) ||
      delay === undefined ||
      this.closing.signal.aborted
    )
      return
    this.config.log(`webhook ${record.event.type} ${record.event.id}: retry ${retry + 1} in ${delay} ms`)
    const timer = setTimeout(() => {
      void this.track(this.post(record)).then((next) => this.retryOnFailure(record, next, retry + 1))
    }, delay)
    timer.unref()
    this.closing.signal.addEventListener('abort', () => clearTimeout(timer), { once: true })
  }

  /** One delivery attempt, recorded on the event; none (undefined) while no webhook URL is set. */
  private async post(record: StandInEventRecord): Promise<WebhookDelivery | undefined> {
    const url = this.config.webhookUrl
    if (url === null) return undefined
    const body = JSON.stringify(record.event)
    const label = `${record.event.type} ${record.event.id}`
    let delivery: WebhookDelivery
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json; charset=utf-8',
          'Stripe-Signature': signPayload(body, this.config.webhookSecret),
          'User-Agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)',
        },
        body,
        signal: AbortSignal.any([AbortSignal.timeout(DELIVERY_TIMEOUT_MS), this.closing.signal]),
      })
      // Read the answer so the connection can be reused.
      await response.arrayBuffer()
      delivery = { status: response.status, at: Date.now() }
      this.config.log(`webhook ${label} -> ${response.status}`)
    } catch (error) {
      const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error)
      delivery = { status: null, error: message, at: Date.now() }
      this.config.log(`webhook ${label} failed: ${message}`)
    }
    record.deliveries.push(delivery)
    return delivery
  }
}

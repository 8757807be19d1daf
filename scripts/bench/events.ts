/**
 * Webhook events for the bench: real checkouts on the processor stand-in, paid there without being
 * delivered, so the driver can send each `checkout.session.completed` itself, signed at send time with
 * the webhook secret exactly as the stand-in signs (its timestamp must be within 5 minutes).
 */
import type pg from 'pg'

import { createProcessorClient } from '../../src/billing/processor'
import { signPayload } from '@starter-kit/standins/processor/signing'
import { inParallel, payOnStandIn } from './http'
import { PORTS, PRICES, PROCESSOR, serverUrl } from './settings'

export type PreparedEvent = { id: string; sessionId: string; body: string }

export const WEBHOOK_PATH = '/api/webhooks/processor'

/** The headers of a delivery as the stand-in sends them, signed now. */
export const deliveryHeaders = (body: string): Record<string, string> => ({
  'content-type': 'application/json; charset=utf-8',
  'stripe-signature': signPayload(body, PROCESSOR.webhookSecret),
  'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)',
})

const PAY_BATCH = 100

/** The email of the `index`-th buyer of `prepareEvents(count, emailPrefix)`. */
export const buyerEmail = (emailPrefix: string, index: number) => `${emailPrefix}-${index}@example.test`

/**
 * `count` anonymous Standard checkouts, opened with the parameters src/billing/checkout.ts sends for a
 * visitor (straight to the stand-in: the checkout endpoint allows 20 per address), each paid by a
 * buyer of its own (`<emailPrefix>-<index>@example.test`).
 */
export const prepareEvents = async (count: number, emailPrefix = 'bench-buyer'): Promise<PreparedEvent[]> => {
  const processor = createProcessorClient({
    secretKey: PROCESSOR.secretKey,
    apiUrl: `http://127.0.0.1:${PORTS.processor}`,
  })
  const metadata = { plan_id: 'standard', price_id: PRICES.standardLifetime, billing_cycle: 'lifetime' }
  const sessions = await inParallel(
    Array.from({ length: count }, (_, index) => index),
    8,
    async (index) => {
      const session = await processor.checkout.sessions.create({
        mode: 'payment',
        line_items: [{ price: PRICES.standardLifetime, quantity: 1 }],
        metadata,
        allow_promotion_codes: false,
        success_url: `${serverUrl}/success?session_id={CHECKOUT_SESSION_ID}`,
        cancel_url: `${serverUrl}/#pricing`,
        payment_intent_data: { metadata },
        customer_creation: 'always',
      })
      return { id: session.id, email: buyerEmail(emailPrefix, index) }
    },
  )
  const events: PreparedEvent[] = []
  for (let start = 0; start < sessions.length; start += PAY_BATCH) {
    const { completed } = await payOnStandIn({ sessions: sessions.slice(start, start + PAY_BATCH), deliver: false })
    for (const event of completed) {
      events.push({ id: event.id, sessionId: (event.data.object as { id: string }).id, body: JSON.stringify(event) })
    }
  }
  if (events.length !== count)
    throw new Error(`prepared ${events.length} checkout.session.completed events, expected ${count}`)
  return events
}

/** Sends each event once more (a few at a time) and insists on 200: whatever was cut off at the end of a run lands. */
export const deliverAll = async (events: PreparedEvent[]): Promise<void> => {
  await inParallel(events, 8, async (event) => {
    const response = await fetch(`${serverUrl}${WEBHOOK_PATH}`, {
      method: 'POST',
      headers: deliveryHeaders(event.body),
      body: event.body,
    })
    const text = await response.text()
    if (response.status !== 200)
      throw new Error(`redelivering ${event.id} answered ${response.status}: ${text.slice(0, 300)}`)
  })
}

export type Effects = { events: number; purchases: number; licenses: number }

/** Throws unless every one of `expected` distinct events left one event row, one purchase and one license. */
export const checkExactlyOnce = (stage: string, effects: Effects, expected: number, log: (line: string) => void) => {
  const wrong = (['events', 'purchases', 'licenses'] as const).filter((name) => effects[name] !== expected)
  if (wrong.length > 0) {
    throw new Error(
      `EXACTLY-ONCE VIOLATED ${stage}: ${expected} distinct events were delivered, the database holds ${JSON.stringify(effects)}`,
    )
  }
  log(
    `exactly-once ${stage}: ${expected} events -> ${effects.purchases} one-time purchases, ${effects.licenses} licenses`,
  )
}

/** What the events left in the database: recorded events, one-time purchases and their licenses. */
export const countEffects = async (db: pg.Client, events: PreparedEvent[]): Promise<Effects> => {
  const ids = events.map((event) => event.id)
  const sessions = events.map((event) => event.sessionId)
  const one = async (sql: string, values: unknown[]) =>
    Number((await db.query<{ n: string }>(sql, values)).rows[0]?.n ?? 0)
  return {
    events: await one('SELECT count(*) AS n FROM processor_events WHERE event_id = ANY($1)', [ids]),
    purchases: await one('SELECT count(*) AS n FROM one_time_purchases WHERE processor_checkout_session_id = ANY($1)', [
      sessions,
    ]),
    licenses: await one(
      `SELECT count(*) AS n FROM licenses l JOIN one_time_purchases p ON p.id = l.one_time_purchase_id
       WHERE p.processor_checkout_session_id = ANY($1)`,
      [sessions],
    ),
  }
}

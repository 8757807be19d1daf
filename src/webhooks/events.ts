/**
 * The outbound webhooks' events (the catalogue with example payloads is docs/WEBHOOKS.md). An endpoint
 * subscribes to any of them.
 */
export const WEBHOOK_EVENT_TYPES = [
  'order.paid',
  'order.refunded',
  'license.created',
  'license.updated',
  'license.revoked',
  'subscription.created',
  'subscription.updated',
  'subscription.canceled',
  'seat.claimed',
  'seat.revoked',
  'activation.created',
  'activation.deleted',
  'customer.deleted',
  'community.granted',
  'community.revoked',
  'commission.created',
  'commission.voided',
] as const

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number]

/** What "Send test event" sends: no endpoint subscribes to it, each test goes to the one endpoint asked. */
export const TEST_EVENT_TYPE = 'webhook.test'

/** The admin's labels for the events, in the words of a seller. */
export const WEBHOOK_EVENT_LABELS: Record<WebhookEventType, string> = {
  'order.paid': 'Order paid',
  'order.refunded': 'Order refunded',
  'license.created': 'License created',
  'license.updated': 'License updated',
  'license.revoked': 'License revoked',
  'subscription.created': 'Subscription created',
  'subscription.updated': 'Subscription updated',
  'subscription.canceled': 'Subscription canceled',
  'seat.claimed': 'Team seat claimed',
  'seat.revoked': 'Team seat revoked',
  'activation.created': 'Installation activated',
  'activation.deleted': 'Installation deactivated',
  'customer.deleted': 'Customer account deleted',
  'community.granted': 'Discord role given',
  'community.revoked': 'Discord role taken back',
  'commission.created': 'Affiliate commission earned',
  'commission.voided': 'Affiliate commission voided',
}

/** Attempts per event and endpoint, the first included. */
export const MAX_ATTEMPTS = 10

/** The longest wait between two attempts. */
export const MAX_RETRY_DELAY_MS = 60 * 60 * 1000

/** An endpoint whose events failed this many times in a row (each after every attempt) is disabled. */
export const FAILED_EVENTS_TO_DISABLE = 10

/** How long the secret before a rotation still signs deliveries, beside the new one. */
export const PREVIOUS_SECRET_TTL_MS = 24 * 60 * 60 * 1000

/**
 * The wait before attempt `attempt + 1` after attempt `attempt` failed: `baseMs` (10 s) after the
 * first, then doubling, at most an hour: 10 s, 20 s, 40 s, ... 42 min 40 s before the tenth and last attempt,
 * about 1 h 25 min after the first (docs/WEBHOOKS.md, pinned by webhooks.test.ts).
 */
export const retryDelayMs = (attempt: number, baseMs: number): number =>
  Math.min(baseMs * 2 ** Math.max(0, attempt - 1), MAX_RETRY_DELAY_MS)

/** The jobs queue deliveries run on: its own, so a slow receiver never holds up sign-in emails. */
export const WEBHOOKS_QUEUE = 'webhooks'

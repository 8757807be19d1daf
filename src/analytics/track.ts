import type { PayloadRequest } from 'payload'

import { execute, sql } from '../db/transaction'

export type AnalyticsEvent = {
  name: string
  userId?: number | null
  email?: string | null
  properties?: Record<string, unknown>
  /** What makes it unique: the processor object or event it describes. Recorded once per (name, source). */
  sourceId: string
  occurredAt?: Date
}

/**
 * Record an analytics event in the caller's transaction, at most once per (name, source): the same
 * fact reported by several processor events (or by a redelivery) counts once.
 */
export const track = async (req: PayloadRequest, event: AnalyticsEvent): Promise<void> => {
  const occurredAt = (event.occurredAt ?? new Date()).toISOString()
  await execute(
    req,
    sql`INSERT INTO analytics_events (name, user_id, email, properties, occurred_at, source_event_id, updated_at, created_at)
        VALUES (${event.name}, ${event.userId ?? null}, ${event.email ?? null}, ${JSON.stringify(event.properties ?? {})}::jsonb,
                ${occurredAt}, ${event.sourceId}, now(), now())
        ON CONFLICT (name, source_event_id) DO NOTHING`,
  )
}

import type { PayloadRequest } from 'payload'

import { analytics_events } from '../db/schema.generated'
import { bare, execute, sql } from '../db/transaction'

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
    sql`INSERT INTO ${analytics_events}
          (${bare(analytics_events.name, analytics_events.user, analytics_events.email, analytics_events.properties)},
           ${bare(analytics_events.occurredAt, analytics_events.sourceEventId, analytics_events.updatedAt, analytics_events.createdAt)})
        VALUES (${event.name}, ${event.userId ?? null}, ${event.email ?? null}, ${JSON.stringify(event.properties ?? {})}::jsonb,
                ${occurredAt}, ${event.sourceId}, now(), now())
        ON CONFLICT (${bare(analytics_events.name, analytics_events.sourceEventId)}) DO NOTHING`,
  )
}

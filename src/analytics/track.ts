import type { PayloadRequest } from 'payload'

import { analytics_events } from '../db/schema.generated'
import { later, statement } from '../db/statements'
import { bare, sql } from '../db/transaction'

export type AnalyticsEvent = {
  name: string
  userId?: number | null
  email?: string | null
  properties?: Record<string, unknown>
  /** What makes it unique: the processor object or event it describes. Recorded once per (name, source). */
  sourceId: string
  occurredAt?: Date
}

const INSERT_EVENT = statement<'name' | 'user' | 'email' | 'properties' | 'occurredAt' | 'sourceId'>(
  (p) =>
    sql`INSERT INTO ${analytics_events}
          (${bare(analytics_events.name, analytics_events.user, analytics_events.email, analytics_events.properties)},
           ${bare(analytics_events.occurredAt, analytics_events.sourceEventId, analytics_events.updatedAt, analytics_events.createdAt)})
        VALUES (${p.name}, ${p.user}, ${p.email}, ${p.properties}::jsonb, ${p.occurredAt}, ${p.sourceId}, now(), now())
        ON CONFLICT (${bare(analytics_events.name, analytics_events.sourceEventId)}) DO NOTHING`,
)

/**
 * Record an analytics event in the caller's transaction, at most once per (name, source): the same
 * fact reported by several processor events (or by a redelivery) counts once. Nothing reads it back in
 * that transaction, so it goes out with the transaction's last statement (src/db/statements.ts, `later`).
 */
export const track = async (req: PayloadRequest, event: AnalyticsEvent): Promise<void> => {
  await later(req, INSERT_EVENT, {
    name: event.name,
    user: event.userId ?? null,
    email: event.email ?? null,
    properties: JSON.stringify(event.properties ?? {}),
    occurredAt: (event.occurredAt ?? new Date()).toISOString(),
    sourceId: event.sourceId,
  })
}

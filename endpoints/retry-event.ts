import type { Endpoint } from 'payload'
import type Stripe from 'stripe'
import { z } from 'zod'

import { isStaffUser } from '../src/access/roles'
import type { BillingRuntime } from '../src/billing/runtime'
import { processEvent } from '../src/billing/webhook/process'
import { endpoint } from '../src/http/endpoint'
import { ServiceError } from '../src/http/errors'
import { withLogContext } from '../src/log'

const notFound = () => new ServiceError(404, 'not_found', 'No such event.')

/**
 * POST /api/processor_events/:id/retry (staff): run a failed event again from its stored payload,
 * which was verified when it arrived. Exactly-once rules apply as for a redelivery.
 */
export const retryEventEndpoint = (runtime: BillingRuntime): Endpoint =>
  endpoint({
    path: '/:id/retry',
    method: 'post',
    auth: 'Sign in first.',
    params: z.object({
      id: z
        .string()
        .regex(/^\d{1,15}$/)
        .transform(Number),
    }),
    invalid: notFound(),
    handler: async ({ req, params, user }) => {
      if (!isStaffUser(user)) throw new ServiceError(403, 'forbidden', 'Only staff can re-run processor events.')
      const row = await req.payload.findByID({
        collection: 'processor_events',
        id: params.id,
        depth: 0,
        disableErrors: true,
      })
      if (!row) throw notFound()
      if (row.status === 'processed' || row.status === 'ignored') return { outcome: 'duplicate', status: row.status }
      const { processor, settings } = runtime.require()
      const event = row.payload as unknown as Stripe.Event
      try {
        const outcome = await withLogContext({ eventId: event.id, eventType: event.type }, async () => {
          const applied = await processEvent(req.payload, processor, event, settings)
          req.payload.logger.info({ outcome: applied, by: user.id }, 'processor event run again by staff')
          return applied
        })
        return { outcome, status: 'processed' }
      } catch (error) {
        if (error instanceof ServiceError) throw error
        // The event's row keeps the failure (its last error) for staff to read.
        throw new ServiceError(500, 'event_failed', 'The event failed again; see its last error.')
      }
    },
  })

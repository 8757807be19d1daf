import type { Endpoint } from 'payload'
import type Stripe from 'stripe'

import { isStaffUser } from '../src/access/roles'
import type { BillingRuntime } from '../src/billing/runtime'
import { processEvent } from '../src/billing/webhook/process'
import { errorResponse, ServiceError } from '../src/http/errors'

/**
 * POST /api/processor_events/:id/retry (staff): run a failed event again from its stored payload,
 * which was verified when it arrived. Exactly-once rules apply as for a redelivery.
 */
export const retryEventEndpoint = (runtime: BillingRuntime): Endpoint => ({
  path: '/:id/retry',
  method: 'post',
  handler: async (req) => {
    try {
      if (!req.user) throw new ServiceError(401, 'unauthenticated', 'Sign in first.')
      if (!isStaffUser(req.user)) throw new ServiceError(403, 'forbidden', 'Only staff can re-run processor events.')
      const id = Number(req.routeParams?.id)
      if (!Number.isInteger(id) || id <= 0) throw new ServiceError(404, 'not_found', 'No such event.')
      const row = await req.payload.findByID({ collection: 'processor_events', id, depth: 0, disableErrors: true })
      if (!row) throw new ServiceError(404, 'not_found', 'No such event.')
      if (row.status === 'processed' || row.status === 'ignored') {
        return Response.json({ outcome: 'duplicate', status: row.status })
      }
      const { processor, settings } = runtime.require()
      const outcome = await processEvent(req.payload, processor, row.payload as unknown as Stripe.Event, settings)
      return Response.json({ outcome, status: 'processed' })
    } catch (error) {
      if (!(error instanceof ServiceError)) {
        return Response.json({ errors: [{ code: 'event_failed', message: 'The event failed again; see its last error.' }] }, { status: 500 })
      }
      return errorResponse(error)
    }
  },
})

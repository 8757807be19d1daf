import type { Endpoint } from 'payload'

import type { BillingRuntime } from '../src/billing/runtime'
import { processEvent } from '../src/billing/webhook/process'
import { verifyEvent } from '../src/billing/webhook/verify'
import { endpoint } from '../src/http/endpoint'
import { ServiceError } from '../src/http/errors'
import { withLogContext } from '../src/log'

/**
 * POST /api/webhooks/processor: the processor's events. 200 once an event is applied (or was
 * already, or is of a type we ignore); 400 for a bad signature or the wrong mode; 500 when it could
 * not be recorded or applied, so the processor retries it.
 */
export const webhookEndpoint = (runtime: BillingRuntime): Endpoint =>
  endpoint({
    path: '/webhooks/processor',
    method: 'post',
    // The signature covers the exact bytes: read them unparsed.
    body: 'raw',
    handler: async ({ req }) => {
      const { processor, webhookSecrets, mode, settings } = runtime.require()
      const rawBody = await req.text!()
      const event = verifyEvent(processor, rawBody, req.headers.get('stripe-signature'), webhookSecrets)
      if (event.livemode !== (mode === 'live')) {
        throw new ServiceError(
          400,
          'livemode_mismatch',
          `A ${event.livemode ? 'live' : 'test'} mode event was sent to a ${mode} mode service.`,
        )
      }
      // Every line written while the event is applied names it.
      return withLogContext({ eventId: event.id, eventType: event.type }, async () => {
        const outcome = await processEvent(req.payload, processor, event, settings)
        req.payload.logger.info({ outcome }, 'processor event received')
        return { received: true, outcome }
      })
    },
  })

import type { Endpoint, PayloadRequest } from 'payload'
import { z } from 'zod'

import { endpoint } from '../src/http/endpoint'
import { ServiceError } from '../src/http/errors'
import { pathRowId } from '../src/http/paths'
import { revealSecret, rotateSecret, sendAgain, sendTestEvent } from '../src/staff/webhook-endpoints'
import type { DeliveryOptions } from '../src/webhooks/deliver'

const SIGN_IN = 'Sign in as an admin first.'
const ADMINS_ONLY = 'Only admins manage webhook endpoints.'

const idParam = z.object({ id: z.string().max(64) })

const endpointId = (id: string) =>
  pathRowId(id, () => new ServiceError(404, 'webhook_endpoint_not_found', 'There is no webhook endpoint with this id.'))

/** An admin's action on `/staff/webhook-...`: POST, no body. */
const adminAction = (path: string, run: (args: { req: PayloadRequest; id: string }) => Promise<object>): Endpoint =>
  endpoint({
    path: `/staff${path}`,
    method: 'post',
    auth: SIGN_IN,
    admin: ADMINS_ONLY,
    params: idParam,
    handler: ({ req, params }) => run({ req, id: params.id }),
  })

/**
 * The webhook endpoints' admin actions (docs/WEBHOOKS.md), the buttons of the endpoint's and the
 * delivery's pages in the admin:
 * - POST /api/staff/webhook-endpoints/:id/reveal-secret: 200 `{secret}` the first time, 409 `secret_already_shown` after;
 * - POST /api/staff/webhook-endpoints/:id/rotate-secret: 200 `{secret, previousSecretExpiresAt}`;
 * - POST /api/staff/webhook-endpoints/:id/test: 200 `{eventId, delivery: {id, outcome, responseStatus, durationMs, error}}`;
 * - POST /api/staff/webhook-deliveries/:id/send-again: as the test, with the delivery's own event id.
 */
export const webhookEndpointActions = (options: DeliveryOptions): Endpoint[] => [
  adminAction('/webhook-endpoints/:id/reveal-secret', ({ req, id }) => revealSecret(req, endpointId(id))),
  adminAction('/webhook-endpoints/:id/rotate-secret', ({ req, id }) => rotateSecret(req, endpointId(id))),
  adminAction('/webhook-endpoints/:id/test', ({ req, id }) => sendTestEvent(req, endpointId(id), options)),
  adminAction('/webhook-deliveries/:id/send-again', ({ req, id }) =>
    sendAgain(
      req,
      pathRowId(
        id,
        () => new ServiceError(404, 'webhook_delivery_not_found', 'There is no webhook delivery with this id.'),
      ),
      options,
    ),
  ),
]

import type { Endpoint } from 'payload'
import { z } from 'zod'

import { endpoint } from '../src/http/endpoint'
import { clientAddress } from '../src/http/client-address'
import { ServiceError } from '../src/http/errors'
import { pathRowId } from '../src/http/paths'
import {
  cancelAccountDeletion,
  type DeletionSettings,
  requestAccountDeletion,
  scheduleDeletionByStaff,
} from '../src/privacy/deletion'
import { staffReasonBody } from '../src/staff/audit'

const SIGN_IN = 'Sign in to delete your account.'
const NO_STORE = { 'Cache-Control': 'no-store' }

/**
 * POST /api/account/deletion {password?}: 202 {scheduledFor}, and an email with a link that cancels it
 * (docs/PRIVACY.md). The account's password, or for an account without one a session from the last 10
 * minutes (403 `reauthentication_required`); 409 `active_subscription` while a subscription renews. A
 * session only: an API key is 403 `api_key_not_allowed`.
 */
export const requestDeletionEndpoint = (settings: DeletionSettings): Endpoint =>
  endpoint({
    path: '/account/deletion',
    method: 'post',
    auth: SIGN_IN,
    body: z.object({ password: z.string().max(1_000).optional() }),
    handler: async ({ req, body, user }) =>
      Response.json(
        await requestAccountDeletion(
          req.payload,
          user,
          {
            password: body.password ?? null,
            sessionId: (user as { _sid?: unknown })._sid?.toString() ?? null,
            address: clientAddress(req.headers),
          },
          settings,
        ),
        { status: 202, headers: NO_STORE },
      ),
  })

/** DELETE /api/account/deletion: 204, the pending deletion cancelled; 404 `no_pending_deletion` when none waits. */
export const cancelDeletionEndpoint: Endpoint = endpoint({
  path: '/account/deletion',
  method: 'delete',
  auth: 'Sign in to cancel the deletion of your account.',
  handler: async ({ req, user }) => {
    await cancelAccountDeletion(req.payload, user.id)
    return new Response(null, { status: 204, headers: NO_STORE })
  },
})

/**
 * POST /api/staff/users/:id/deletion {reason}: 200 {user: {id}, scheduledFor, auditLogId}. Admins only;
 * the customer's own refusals hold (409 `active_subscription`, `staff_account`, `deletion_pending`,
 * `account_erased`), and the customer gets the same email and may cancel.
 */
export const staffDeletionEndpoint = (settings: DeletionSettings): Endpoint =>
  endpoint({
    path: '/staff/users/:id/deletion',
    method: 'post',
    auth: 'Sign in as an admin first.',
    admin: 'Only admins delete a customer account.',
    params: z.object({ id: z.string().max(64) }),
    body: staffReasonBody,
    handler: ({ req, params, body }) =>
      scheduleDeletionByStaff(
        req,
        pathRowId(params.id, () => new ServiceError(404, 'user_not_found', 'There is no user with this id.')),
        body.reason,
        settings,
      ),
  })

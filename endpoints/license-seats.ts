import type { Endpoint } from 'payload'
import { z } from 'zod'

import { endpoint } from '../src/http/endpoint'
import { pathRowId } from '../src/http/paths'
import { ServiceError } from '../src/http/errors'
import { licenseNotYours } from '../src/licensing/status'
import { activationsOf, deactivateAsOwner } from '../src/teams/activations'
import { assignSeat, listSeats, ownedLicense, revokeSeat, type SeatContext } from '../src/teams/seats'

const SIGN_IN = "Sign in to manage your license's team."

const licenseNotFound = licenseNotYours
const seatNotFound = () => new ServiceError(404, 'seat_not_found', 'This license has no seat with this id.')
const activationNotFound = () =>
  new ServiceError(404, 'activation_not_found', 'This license has no activation with this id.')

const licenseParams = z.object({ id: z.string().max(32) })

/**
 * A license's team and installations, for its owner (a session, or an API key of the owner;
 * docs/TEAMS.md). A member (someone holding a claimed seat) gets 403 `not_license_owner`;
 * anyone else 404 `license_not_found`.
 * - GET /:id/seats → 200 {seats, used, owner: {email}, members: [{id, email, status, claimedAt, expiresAt, createdAt}]}
 * - POST /:id/seats {email} → 201 {id, email, status: 'pending', ...}; 409 seats_exhausted, seat_already_assigned, license_inactive
 * - DELETE /:id/seats/:seatId → 204
 * - GET /:id/activations → 200 {limit, activations: [{id, fingerprint, label, createdAt, lastValidatedAt}]}
 * - DELETE /:id/activations/:activationId → 204; 429 deactivation_limit (shared with the key's deactivations)
 */
export const seatEndpoints = (context: SeatContext): Endpoint[] => [
  endpoint({
    path: '/:id/seats',
    method: 'get',
    auth: SIGN_IN,
    params: licenseParams,
    handler: async ({ req, params, user }) =>
      Response.json(await listSeats(req, user, pathRowId(params.id, licenseNotFound)), {
        headers: { 'Cache-Control': 'no-store' },
      }),
  }),
  endpoint({
    path: '/:id/seats',
    method: 'post',
    auth: SIGN_IN,
    params: licenseParams,
    body: z.object({ email: z.string().trim().max(254).email('must be an email address.') }),
    handler: async ({ req, params, body, user }) => {
      const licenseId = pathRowId(params.id, licenseNotFound)
      return Response.json(await assignSeat(req.payload, user, licenseId, body.email, context), { status: 201 })
    },
  }),
  endpoint({
    path: '/:id/seats/:seatId',
    method: 'delete',
    auth: SIGN_IN,
    params: z.object({ id: z.string().max(32), seatId: z.string().max(32) }),
    handler: async ({ req, params, user }) => {
      await revokeSeat(req.payload, user, pathRowId(params.id, licenseNotFound), pathRowId(params.seatId, seatNotFound))
      return new Response(null, { status: 204 })
    },
  }),
  endpoint({
    path: '/:id/activations',
    method: 'get',
    auth: SIGN_IN,
    params: licenseParams,
    handler: async ({ req, params, user }) => {
      const license = await ownedLicense(req, user, pathRowId(params.id, licenseNotFound))
      return Response.json(await activationsOf(req.payload, license.id, req), {
        headers: { 'Cache-Control': 'no-store' },
      })
    },
  }),
  endpoint({
    path: '/:id/activations/:activationId',
    method: 'delete',
    auth: SIGN_IN,
    params: z.object({ id: z.string().max(32), activationId: z.string().max(32) }),
    handler: async ({ req, params, user }) => {
      await deactivateAsOwner(
        req.payload,
        user.id,
        pathRowId(params.id, licenseNotFound),
        pathRowId(params.activationId, activationNotFound),
      )
      return new Response(null, { status: 204 })
    },
  }),
]

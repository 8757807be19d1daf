import type { Endpoint } from 'payload'
import { z } from 'zod'

import { endpoint, publicPreflight } from '../src/http/endpoint'
import { activate, deactivateWithKey } from '../src/teams/activations'
import { enforceLimits, MAX_KEY_LENGTH } from './licenses-validate'

/** What an app sends to name its installation: printable, no spaces at the ends. */
const fingerprint = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/, 'must be printable ASCII without leading or trailing spaces.')

/**
 * Activations for the kit's apps (docs/TEAMS.md). No session: the license key is the
 * credential, rate-limited like validation (per client address and per key). A key that opens nothing
 * answers its validation code as an error: 404 `license_not_found`, 403 `license_revoked`,
 * `license_suspended`, `license_expired` (each with `validation`, the code validate would answer).
 * - POST /activate {key, fingerprint, label?} → 201 {id, fingerprint, label, createdAt, lastValidatedAt,
 *   activations: {used, limit}}; the same fingerprint again → 200 with the same activation; 409
 *   `activation_limit_reached` with {used, limit}
 * - POST /deactivate {key, activationId} → 204; 404 `activation_not_found` (also another license's);
 *   429 `deactivation_limit` with Retry-After after 3 in a rolling day
 */
export const activationEndpoints = (): Endpoint[] => [
  endpoint({
    path: '/activate',
    publicCors: true,
    method: 'post',
    body: z.object({ key: z.string().max(MAX_KEY_LENGTH), fingerprint, label: z.string().trim().max(100).nullish() }),
    handler: async ({ req, body, address }) => {
      await enforceLimits(req.payload, address, body.key)
      const { created, activation } = await activate(req.payload, {
        key: body.key,
        fingerprint: body.fingerprint,
        label: body.label || null,
      })
      return Response.json(activation, { status: created ? 201 : 200, headers: { 'Cache-Control': 'no-store' } })
    },
  }),
  endpoint({
    path: '/deactivate',
    publicCors: true,
    method: 'post',
    body: z.object({
      key: z.string().max(MAX_KEY_LENGTH),
      activationId: z
        .number()
        .int()
        .positive()
        .max(2 ** 31 - 1),
    }),
    handler: async ({ req, body, address }) => {
      await enforceLimits(req.payload, address, body.key)
      await deactivateWithKey(req.payload, { key: body.key, activationId: body.activationId })
      return new Response(null, { status: 204 })
    },
  }),
  // Apps in a browser (the license client) call these from their own origin.
  publicPreflight('/activate'),
  publicPreflight('/deactivate'),
]

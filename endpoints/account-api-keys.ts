import type { Endpoint } from 'payload'
import { z } from 'zod'

import { createApiKey, listApiKeys, revokeApiKey } from '../src/auth/api-keys'
import { endpoint } from '../src/http/endpoint'
import { ServiceError } from '../src/http/errors'

const SIGN_IN = 'Sign in to manage your API keys.'
const NO_STORE = { 'Cache-Control': 'no-store' }

const notFound = new ServiceError(404, 'api_key_not_found', 'You have no API key with this id.')

/** POST /api/account/api-keys {name}: 201 {id, name, prefix, key}; the key is shown this once. */
export const createApiKeyEndpoint: Endpoint = endpoint({
  path: '/account/api-keys',
  method: 'post',
  auth: SIGN_IN,
  body: z.object({ name: z.string().trim().min(1, 'give the key a name').max(60, 'at most 60 characters') }),
  handler: async ({ req, body, user }) =>
    Response.json(await createApiKey(req, user, body.name), { status: 201, headers: NO_STORE }),
})

/** GET /api/account/api-keys: 200 {docs: [{id, name, prefix, createdAt, lastUsedAt}]}, the caller's live keys. */
export const listApiKeysEndpoint: Endpoint = endpoint({
  path: '/account/api-keys',
  method: 'get',
  auth: SIGN_IN,
  handler: async ({ req, user }) => Response.json({ docs: await listApiKeys(req, user) }, { headers: NO_STORE }),
})

/** DELETE /api/account/api-keys/:id: 204; a key that is not the caller's (or is revoked) is 404. */
export const revokeApiKeyEndpoint: Endpoint = endpoint({
  path: '/account/api-keys/:id',
  method: 'delete',
  auth: SIGN_IN,
  params: z.object({
    id: z
      .string()
      .regex(/^\d{1,15}$/)
      .transform(Number),
  }),
  invalid: notFound,
  handler: async ({ req, params, user }) => {
    await revokeApiKey(req, user, params.id)
    return new Response(null, { status: 204 })
  },
})

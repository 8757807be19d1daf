import type { Endpoint } from 'payload'
import { z } from 'zod'

import { requestEmailChange } from '../src/auth/email-change'
import { endpoint } from '../src/http/endpoint'

type Options = { serverUrl: string; productName: string }

/** POST /api/account/email {email, currentPassword} (signed in): 200 {ok: true, pending}; the change waits for the link sent to the new address. */
export const accountEmailEndpoint = (options: Options): Endpoint =>
  endpoint({
    path: '/account/email',
    method: 'post',
    auth: 'Sign in first.',
    // The address rules live with the operation (400 invalid_request).
    body: z.object({ email: z.string().max(320), currentPassword: z.string().max(200).optional() }),
    handler: async ({ req, body, user, address }) => ({
      ok: true,
      pending: await requestEmailChange(req.payload, user, body, { ...options, address }),
    }),
  })

import type { Endpoint } from 'payload'
import { z } from 'zod'

import { resendConfirmation } from '../src/auth/sign-up'
import { endpoint } from '../src/http/endpoint'

type Options = { serverUrl: string; productName: string }

/** POST /api/auth/resend-confirmation {email}: 200 {ok: true} for every email; a new link only to an unverified account. */
export const resendConfirmationEndpoint = (options: Options): Endpoint =>
  endpoint({
    path: '/auth/resend-confirmation',
    method: 'post',
    body: z.object({ email: z.string().max(320) }),
    handler: async ({ req, body, address }) => {
      await resendConfirmation(req.payload, body, { ...options, address })
      return { ok: true }
    },
  })

import type { Endpoint } from 'payload'

import { clientAddress } from '../src/auth/rate-limit'
import { resendConfirmation } from '../src/auth/sign-up'
import { errorResponse } from '../src/http/errors'
import { readJsonObject } from '../src/http/json'

type Options = { serverUrl: string; productName: string }

/** POST /api/auth/resend-confirmation {email}: 200 {ok: true} for every email; a new link only to an unverified account. */
export const resendConfirmationEndpoint = (options: Options): Endpoint => ({
  path: '/auth/resend-confirmation',
  method: 'post',
  handler: async (req) => {
    try {
      const body = await readJsonObject(req)
      await resendConfirmation(req.payload, body, { ...options, address: clientAddress(req.headers) })
      return Response.json({ ok: true })
    } catch (error) {
      return errorResponse(error)
    }
  },
})

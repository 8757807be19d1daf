import type { Endpoint } from 'payload'

import { requestEmailChange } from '../src/auth/email-change'
import { clientAddress } from '../src/auth/rate-limit'
import { errorResponse, ServiceError } from '../src/http/errors'
import { readJsonObject } from '../src/http/json'
import type { User } from '../src/payload-types'

type Options = { serverUrl: string; productName: string }

/** POST /api/account/email {email} (signed in): 200 {ok: true, pending}; the change waits for the link sent to the new address. */
export const accountEmailEndpoint = (options: Options): Endpoint => ({
  path: '/account/email',
  method: 'post',
  handler: async (req) => {
    try {
      if (!req.user || req.user.collection !== 'users') throw new ServiceError(401, 'unauthenticated', 'Sign in first.')
      const body = await readJsonObject(req)
      const pending = await requestEmailChange(req.payload, req.user as User, body, { ...options, address: clientAddress(req.headers) })
      return Response.json({ ok: true, pending })
    } catch (error) {
      return errorResponse(error)
    }
  },
})

import type { Endpoint } from 'payload'

import { normaliseEmail, requestMagicLink } from '../src/auth/magic-link'
import { clientAddress, enforceRateLimit } from '../src/auth/rate-limit'
import { errorResponse } from '../src/http/errors'
import { readJsonObject } from '../src/http/json'

/** POST /api/auth/magic-link {email, next?}: 200 {ok: true}, the same for known and unknown emails. */
export const magicLinkEndpoint = (options: { serverUrl: string; productName: string }): Endpoint => ({
  path: '/auth/magic-link',
  method: 'post',
  handler: async (req) => {
    try {
      const body = await readJsonObject(req)
      const email = normaliseEmail(body.email)
      await enforceRateLimit(req.payload, 'magic_link', { address: clientAddress(req.headers), email })
      await requestMagicLink(req.payload, { email, next: body.next, ...options })
      return Response.json({ ok: true })
    } catch (error) {
      return errorResponse(error)
    }
  },
})

import type { Endpoint } from 'payload'
import { z } from 'zod'

import { normaliseEmail, requestMagicLink } from '../src/auth/magic-link'
import { enforceRateLimit } from '../src/auth/rate-limit'
import { endpoint } from '../src/http/endpoint'

const body = z.object({ email: z.string().max(320), next: z.string().max(2048).nullish() })

/** POST /api/auth/magic-link {email, next?}: 200 {ok: true}, the same for known and unknown emails. */
export const magicLinkEndpoint = (options: { serverUrl: string; productName: string }): Endpoint =>
  endpoint({
    path: '/auth/magic-link',
    method: 'post',
    body,
    handler: async ({ req, body, address }) => {
      const email = normaliseEmail(body.email)
      await enforceRateLimit(req.payload, 'magic_link', { address, email })
      await requestMagicLink(req.payload, { email, next: body.next, ...options })
      return { ok: true }
    },
  })

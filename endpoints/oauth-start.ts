import type { Endpoint } from 'payload'
import { z } from 'zod'

import { type OAuthSettings, startOAuth } from '../src/auth/oauth'
import { endpoint } from '../src/http/endpoint'

/** GET /api/auth/oauth/:provider?next=: 302 to GitHub or Google with state, PKCE (and a nonce). */
export const oauthStartEndpoint = (settings: OAuthSettings): Endpoint =>
  endpoint({
    path: '/auth/oauth/:provider',
    method: 'get',
    params: z.object({ provider: z.string().max(32) }),
    // A `next` that is not one same-site path is dropped (the sign-in then ends on the dashboard).
    query: z.object({ next: z.string().max(2048).optional().catch(undefined) }),
    handler: ({ params, query }) => {
      const { location, cookie } = startOAuth(settings, params.provider, query.next ?? null)
      return new Response(null, {
        status: 302,
        headers: { Location: location, 'Set-Cookie': cookie, 'Cache-Control': 'no-store' },
      })
    },
  })

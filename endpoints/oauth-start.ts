import type { Endpoint } from 'payload'

import { type OAuthSettings, startOAuth } from '../src/auth/oauth'
import { errorResponse } from '../src/http/errors'

/** GET /api/auth/oauth/:provider?next=: 302 to GitHub or Google with state, PKCE (and a nonce). */
export const oauthStartEndpoint = (settings: OAuthSettings): Endpoint => ({
  path: '/auth/oauth/:provider',
  method: 'get',
  handler: async (req) => {
    try {
      const { location, cookie } = startOAuth(settings, String(req.routeParams?.provider ?? ''), req.searchParams.get('next'))
      return new Response(null, { status: 302, headers: { Location: location, 'Set-Cookie': cookie, 'Cache-Control': 'no-store' } })
    } catch (error) {
      return errorResponse(error)
    }
  },
})

import type { Endpoint } from 'payload'

import { asRateLimited, limiterOf } from '../src/auth/rate-limit'
import { endpoint } from '../src/http/endpoint'
import { exportAccount } from '../src/privacy/export'

/**
 * GET /api/account/export: 200, a JSON attachment of everything held about the signed-in account
 * (docs/PRIVACY.md). A session only: an API key answers 403 `api_key_not_allowed`. At most 5 a day per
 * account (429 `rate_limited` with Retry-After); an export that fails is not counted.
 */
export const accountExportEndpoint: Endpoint = endpoint({
  path: '/account/export',
  method: 'get',
  auth: 'Sign in to download your data.',
  handler: async ({ req, user }) => {
    const limiter = limiterOf(req.payload, 'account_export:user')
    try {
      await limiter.consume(String(user.id))
    } catch (error) {
      throw asRateLimited(error, 'exports today')
    }
    let document: Awaited<ReturnType<typeof exportAccount>>
    try {
      document = await exportAccount(req.payload, user)
    } catch (error) {
      await limiter.reward(String(user.id)).catch(() => undefined)
      throw error
    }
    const day = document.exportedAt.slice(0, 10)
    return new Response(JSON.stringify(document, null, 2), {
      headers: {
        'Content-Type': 'application/json; charset=utf-8',
        'Content-Disposition': `attachment; filename="account-${user.id}-${day}.json"`,
        'Cache-Control': 'no-store',
        'X-Content-Type-Options': 'nosniff',
      },
    })
  },
})

import { parseCookies } from 'payload'

import { handleAuthCallback } from '../../../../auth/callback'
import { accountOf } from '../../../../http/account'
import { handleSeatClaim } from '../../../../teams/claim-link'
import { getPayloadClient } from '../../../_lib/session'

export const dynamic = 'force-dynamic'

/** GET /auth/callback: see src/auth/callback.ts; `type=seat` is a team seat's claim link (src/teams/claim-link.ts). */
export async function GET(request: Request) {
  const payload = await getPayloadClient()
  const params = new URL(request.url).searchParams
  const cookies = parseCookies(request.headers)
  const headers = new Headers({ 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' })
  if (params.get('type') === 'seat') {
    const { user } = await payload.auth({ headers: request.headers })
    const result = await handleSeatClaim(payload, { params, cookies, user: accountOf({ user }) })
    headers.set('Location', result.location)
    for (const cookie of result.cookies) headers.append('Set-Cookie', cookie)
    return new Response(null, { status: 302, headers })
  }
  const result = await handleAuthCallback(payload, { params, cookies })
  headers.set('Location', result.location)
  if (result.cookie) headers.append('Set-Cookie', result.cookie)
  for (const cookie of result.extraCookies ?? []) headers.append('Set-Cookie', cookie)
  return new Response(null, { status: 302, headers })
}

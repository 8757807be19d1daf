import { parseCookies } from 'payload'

import { handleAuthCallback } from '../../../../auth/callback'
import { getPayloadClient } from '../../../_lib/session'

export const dynamic = 'force-dynamic'

/** GET /auth/callback: see src/auth/callback.ts. */
export async function GET(request: Request) {
  const payload = await getPayloadClient()
  const result = await handleAuthCallback(payload, { params: new URL(request.url).searchParams, cookies: parseCookies(request.headers) })
  const headers = new Headers({ Location: result.location, 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' })
  if (result.cookie) headers.append('Set-Cookie', result.cookie)
  for (const cookie of result.extraCookies ?? []) headers.append('Set-Cookie', cookie)
  return new Response(null, { status: 302, headers })
}

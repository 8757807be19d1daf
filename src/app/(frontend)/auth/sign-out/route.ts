import { endCurrentSession } from '../../../../auth/issue-session'
import { readEnv } from '../../../../config/env'
import { errorResponse, ServiceError } from '../../../../http/errors'
import { clearSessionCookie, getPayloadClient } from '../../../_lib/session'

export const dynamic = 'force-dynamic'

/**
 * Whether the form was posted by a page of this site: a browser says so in Sec-Fetch-Site and Origin.
 * Either, when sent, must be this site's; a request with neither (an old browser) is let through, as
 * signing out is all it can do.
 */
const postedHere = (request: Request): boolean => {
  const site = request.headers.get('sec-fetch-site')
  if (site !== null && site !== 'same-origin' && site !== 'none') return false
  const origin = request.headers.get('origin')
  return origin === null || origin === new URL(readEnv().serverUrl).origin
}

/**
 * POST /auth/sign-out: the header's Sign out (a plain form, so it works on the pages without
 * JavaScript and always reloads the page it lands on). The session ends on the server (the old token
 * stops working), the cookie goes, and the browser lands on the home page. A post from another site
 * changes nothing (403 `forbidden`).
 */
export async function POST(request: Request) {
  if (!postedHere(request))
    return errorResponse(new ServiceError(403, 'forbidden', 'Sign out from this site’s own pages.'))
  const payload = await getPayloadClient()
  const headers = new Headers(request.headers)
  headers.delete('origin')
  headers.set('sec-fetch-site', 'same-origin')
  await endCurrentSession(payload, headers)
  await clearSessionCookie(payload)
  return new Response(null, { status: 303, headers: { Location: '/', 'Cache-Control': 'no-store' } })
}

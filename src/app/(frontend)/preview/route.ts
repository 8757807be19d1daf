import { draftMode } from 'next/headers'

import { isStaffUser } from '../../../access/roles'
import { errorBody } from '../../../http/errors'
import { getPayloadClient } from '../../_lib/session'
import { previewPath } from './paths'

/**
 * GET /preview?collection=posts|changelog_entries&slug=: the admin's preview and live preview
 * open this. A staff session (verified by Payload, not just present) turns on Next's draft mode
 * and goes to the entry's page, which then shows its newest draft. Anyone else gets an error and
 * no draft-mode cookie.
 */
export const dynamic = 'force-dynamic'

const noStore = { 'Cache-Control': 'no-store' }

export const GET = async (request: Request): Promise<Response> => {
  const url = new URL(request.url)
  const path = previewPath(url.searchParams.get('collection'), url.searchParams.get('slug'))
  if (!path) {
    return Response.json(errorBody('invalid_request', 'Give collection=posts or changelog_entries and a valid slug.'), {
      status: 400,
      headers: noStore,
    })
  }
  const payload = await getPayloadClient()
  const { user } = await payload.auth({ headers: request.headers })
  if (!user)
    return Response.json(errorBody('unauthenticated', 'Sign in to the admin to preview drafts.'), {
      status: 401,
      headers: noStore,
    })
  if (!isStaffUser(user))
    return Response.json(errorBody('forbidden', 'Only staff can preview drafts.'), { status: 403, headers: noStore })
  const draft = await draftMode()
  draft.enable()
  return new Response(null, { status: 307, headers: { Location: path, ...noStore } })
}

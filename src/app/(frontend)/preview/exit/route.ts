import { draftMode } from 'next/headers'

import { returnPath } from '../paths'

/** GET /preview/exit?path=: leave draft mode and go back to the page (a site path only). */
export const dynamic = 'force-dynamic'

export const GET = async (request: Request): Promise<Response> => {
  const draft = await draftMode()
  draft.disable()
  const path = returnPath(new URL(request.url).searchParams.get('path'))
  return new Response(null, { status: 307, headers: { Location: path, 'Cache-Control': 'no-store' } })
}

import type { Endpoint } from 'payload'

import { type DownloadSettings, requestDownload } from '../src/delivery/download'
import { streamReleaseFile } from '../src/delivery/file'
import { verifyDownload } from '../src/delivery/signing'
import { errorResponse, ServiceError } from '../src/http/errors'

/** GET /api/download?version=: 200 {url, version, filename, expiresAt}, a short-lived signed link. */
export const downloadEndpoint = (settings: DownloadSettings): Endpoint => ({
  path: '/download',
  method: 'get',
  handler: async (req) => {
    try {
      const link = await requestDownload(req, settings, req.searchParams.getAll('version'), {
        address: req.headers.get('x-forwarded-for') ?? req.headers.get('x-real-ip'),
        userAgent: req.headers.get('user-agent'),
      })
      return Response.json(link, { headers: { 'Cache-Control': 'no-store' } })
    } catch (error) {
      return errorResponse(error)
    }
  },
})

const positiveInt = (value: string | null | undefined) => {
  const number = Number(value)
  return value && /^\d{1,15}$/.test(value) && Number.isSafeInteger(number) && number > 0 ? number : null
}

/**
 * GET /api/download/file/:id?user=&expires=&signature=: the archive itself, for links signed by
 * /api/download when releases live on local disk. 403 for an expired or altered link.
 */
export const downloadFileEndpoint = (options: { secret: string; staticDir: string }): Endpoint => ({
  path: '/download/file/:id',
  method: 'get',
  handler: async (req) => {
    try {
      const releaseId = positiveInt(req.routeParams?.id as string | undefined)
      const userId = positiveInt(req.searchParams.get('user'))
      const expires = positiveInt(req.searchParams.get('expires'))
      const signature = req.searchParams.get('signature') ?? ''
      if (!releaseId || !userId || !expires || !signature) throw new ServiceError(403, 'invalid_link', 'This download link is not valid.')
      const verdict = verifyDownload(options.secret, { releaseId, userId, expires, signature })
      if (verdict === 'expired') throw new ServiceError(403, 'link_expired', 'This download link has expired. Ask for a new one.')
      if (verdict === 'invalid') throw new ServiceError(403, 'invalid_link', 'This download link is not valid.')
      const release = await req.payload.findByID({ collection: 'releases', id: releaseId, depth: 0, overrideAccess: true, disableErrors: true })
      if (!release) throw new ServiceError(404, 'version_not_found', 'This release no longer exists.')
      return await streamReleaseFile(release, options.staticDir, req.headers.get('range'))
    } catch (error) {
      return errorResponse(error)
    }
  },
})

import type { Endpoint } from 'payload'
import { z } from 'zod'

import { type DownloadSettings, requestDownload } from '../src/delivery/download'
import { streamReleaseFile } from '../src/delivery/file'
import { verifyDownload } from '../src/delivery/signing'
import { endpoint } from '../src/http/endpoint'
import { ServiceError } from '../src/http/errors'

/** Every value of `version` (given twice is refused by the release rules, as a bad version is). */
const versions = z
  .union([z.string(), z.array(z.string())])
  .optional()
  .transform((value) => (value === undefined ? [] : Array.isArray(value) ? value : [value]))

/** GET /api/download?version=: 200 {url, version, filename, expiresAt}, a short-lived signed link. */
export const downloadEndpoint = (settings: DownloadSettings): Endpoint =>
  endpoint({
    path: '/download',
    method: 'get',
    auth: 'Sign in to download the kit.',
    query: z.object({ version: versions }),
    handler: async ({ req, query, address }) => {
      const link = await requestDownload(req, settings, query.version, { address, userAgent: req.headers.get('user-agent') })
      return Response.json(link, { headers: { 'Cache-Control': 'no-store' } })
    },
  })

const positiveInt = z.string().regex(/^\d{1,15}$/).transform(Number).pipe(z.number().int().positive().max(Number.MAX_SAFE_INTEGER))

/**
 * GET /api/download/file/:id?user=&expires=&signature=: the archive itself, for links signed by
 * /api/download when releases live on local disk. 403 for an expired or altered link.
 */
export const downloadFileEndpoint = (options: { secret: string; staticDir: string }): Endpoint =>
  endpoint({
    path: '/download/file/:id',
    method: 'get',
    params: z.object({ id: positiveInt }),
    query: z.object({ user: positiveInt, expires: positiveInt, signature: z.string().min(1).max(512) }),
    invalid: new ServiceError(403, 'invalid_link', 'This download link is not valid.'),
    handler: async ({ req, params, query }) => {
      const verdict = verifyDownload(options.secret, { releaseId: params.id, userId: query.user, expires: query.expires, signature: query.signature })
      if (verdict === 'expired') throw new ServiceError(403, 'link_expired', 'This download link has expired. Ask for a new one.')
      if (verdict === 'invalid') throw new ServiceError(403, 'invalid_link', 'This download link is not valid.')
      const release = await req.payload.findByID({ collection: 'releases', id: params.id, depth: 0, overrideAccess: true, disableErrors: true })
      if (!release) throw new ServiceError(404, 'version_not_found', 'This release no longer exists.')
      return streamReleaseFile(release, options.staticDir, req.headers.get('range'))
    },
  })

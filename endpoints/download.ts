import type { Endpoint } from 'payload'
import { z } from 'zod'

import { type DownloadSettings, requestDownload } from '../src/delivery/download'
import { signedFileEndpoint } from '../src/delivery/signed-file-endpoint'
import { verifyDownload } from '../src/delivery/signing'
import { invalidVersion } from '../src/delivery/versions'
import { endpoint } from '../src/http/endpoint'
import { ServiceError } from '../src/http/errors'

/** Every value of `version` (given twice is refused by the release rules, as a bad version is). */
const version = z.string().max(64)
const versions = z
  .union([version, z.array(version).max(4)])
  .optional()
  .transform((value) => (value === undefined ? [] : Array.isArray(value) ? value : [value]))

/** GET /api/download?version=: 200 {url, version, filename, expiresAt}, a short-lived signed link. */
export const downloadEndpoint = (settings: DownloadSettings): Endpoint =>
  endpoint({
    path: '/download',
    method: 'get',
    auth: 'Sign in to download the kit.',
    query: z.object({ version: versions }),
    // Over-long or too many versions are refused as any other bad version is.
    invalid: invalidVersion(),
    handler: async ({ req, query, address }) => {
      const link = await requestDownload(req, settings, query.version, {
        address,
        userAgent: req.headers.get('user-agent'),
      })
      return Response.json(link, { headers: { 'Cache-Control': 'no-store' } })
    },
  })

/**
 * GET /api/download/file/:id?user=&expires=&signature=: the archive itself, for links signed by
 * /api/download when releases live on local disk. 403 for an expired or altered link.
 */
export const downloadFileEndpoint = (options: { secret: string; staticDir: string }): Endpoint =>
  signedFileEndpoint({
    path: '/download/file/:id',
    staticDir: options.staticDir,
    verify: (link) =>
      verifyDownload(options.secret, {
        releaseId: link.id,
        userId: link.userId,
        expires: link.expires,
        signature: link.signature,
      }),
    load: (req, id) =>
      req.payload.findByID({ collection: 'releases', id, depth: 0, overrideAccess: true, disableErrors: true }),
    missing: new ServiceError(404, 'version_not_found', 'This release no longer exists.'),
  })

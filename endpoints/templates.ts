import type { Endpoint } from 'payload'
import { z } from 'zod'

import { positiveId, signedFileEndpoint } from '../src/delivery/signed-file-endpoint'
import {
  isPublishedTemplate,
  requestTemplateDownload,
  type TemplateDownloadSettings,
  verifyTemplateLink,
} from '../src/delivery/templates'
import { endpoint } from '../src/http/endpoint'
import { ServiceError } from '../src/http/errors'

const notFound = new ServiceError(404, 'template_not_found', 'There is no such template.')

/** GET /api/templates/:id/download: 200 {url, expiresAt}, a short-lived signed link (key `templates`). */
export const templateDownloadEndpoint = (settings: TemplateDownloadSettings): Endpoint =>
  endpoint({
    path: '/:id/download',
    method: 'get',
    auth: 'Sign in to download templates.',
    params: z.object({ id: positiveId }),
    invalid: notFound,
    handler: async ({ req, params, address }) => {
      const link = await requestTemplateDownload(req, settings, params.id, {
        address,
        userAgent: req.headers.get('user-agent'),
      })
      return Response.json(link, { headers: { 'Cache-Control': 'no-store' } })
    },
  })

/**
 * GET /api/templates/:id/file?user=&expires=&signature=: the archive itself, for links signed by
 * /api/templates/:id/download when templates live on local disk. 403 for an expired or altered link.
 */
export const templateFileEndpoint = (options: { secret: string; staticDir: string }): Endpoint =>
  signedFileEndpoint({
    path: '/:id/file',
    staticDir: options.staticDir,
    verify: (link) =>
      verifyTemplateLink(options.secret, {
        templateId: link.id,
        userId: link.userId,
        expires: link.expires,
        signature: link.signature,
      }),
    load: async (req, id) => {
      const template = await req.payload.findByID({
        collection: 'templates',
        id,
        depth: 0,
        overrideAccess: true,
        disableErrors: true,
      })
      // Unpublished since the link was handed out: the link dies with the template's publication.
      return template && isPublishedTemplate(template) ? template : null
    },
    missing: notFound,
  })

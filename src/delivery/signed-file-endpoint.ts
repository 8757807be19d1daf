import type { Endpoint, PayloadRequest } from 'payload'
import { z } from 'zod'

import { endpoint } from '../http/endpoint'
import { ServiceError } from '../http/errors'
import type { Release } from '../payload-types'
import { streamReleaseFile } from './file'

/** A database id in a path or query: digits only, a positive safe integer. */
export const positiveId = z
  .string()
  .regex(/^\d{1,15}$/)
  .transform(Number)
  .pipe(z.number().int().positive().max(Number.MAX_SAFE_INTEGER))

export type SignedLink = { id: number; userId: number; expires: number; signature: string }

const invalidLink = new ServiceError(403, 'invalid_link', 'This download link is not valid.')

/**
 * GET <path>?user=&expires=&signature=: the file a link signed by the service names (releases and
 * templates on local disk). 403 for an altered or expired link; `load` says whether the record
 * still exists and may still be handed out (null: 404 with `missing`).
 */
export const signedFileEndpoint = (options: {
  path: string
  staticDir: string
  verify: (link: SignedLink) => 'valid' | 'expired' | 'invalid'
  load: (req: PayloadRequest, id: number) => Promise<Pick<Release, 'filename' | 'mimeType'> | null>
  missing: ServiceError
}): Endpoint =>
  endpoint({
    path: options.path,
    method: 'get',
    params: z.object({ id: positiveId }),
    query: z.object({ user: positiveId, expires: positiveId, signature: z.string().min(1).max(512) }),
    invalid: invalidLink,
    handler: async ({ req, params, query }) => {
      const verdict = options.verify({
        id: params.id,
        userId: query.user,
        expires: query.expires,
        signature: query.signature,
      })
      if (verdict === 'expired')
        throw new ServiceError(403, 'link_expired', 'This download link has expired. Ask for a new one.')
      if (verdict === 'invalid') throw invalidLink
      const file = await options.load(req, params.id)
      if (!file) throw options.missing
      return streamReleaseFile(file, options.staticDir, req.headers.get('range'))
    },
  })

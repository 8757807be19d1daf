import path from 'node:path'

import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3'
import { getSignedUrl } from '@aws-sdk/s3-request-presigner'

import type { Release } from '../payload-types'
import { signDownload } from './signing'

export type S3Settings = {
  bucket: string
  region: string
  endpoint?: string
  accessKeyId?: string
  secretAccessKey?: string
}

/** What a link needs of a stored archive (a release or a template): its id, file name and S3 prefix. */
type StoredArchive = Pick<Release, 'id' | 'filename' | 'prefix'>

export type ReleaseStorage = {
  kind: 's3' | 'local'
  /** A link that downloads this archive until `expires` (unix seconds). */
  linkFor: (release: StoredArchive, userId: number, expires: number, now: number) => Promise<string>
}

/** The archive's name as the browser saves it: the record's own name, quoted safely. */
export const attachmentDisposition = (filename: string) =>
  `attachment; filename="${filename.replace(/["\\\r\n]/g, '_')}"; filename*=UTF-8''${encodeURIComponent(filename)}`

export const S3_PREFIX = 'releases'

/**
 * The S3 client settings every user of the bucket shares (release links, Payload's storage adapter
 * for releases and media). Checksums of streamed uploads are not understood by every S3-compatible
 * server, so they are sent only when required.
 */
export const s3ClientConfig = (settings: S3Settings | null) => ({
  region: settings?.region ?? 'us-east-1',
  ...(settings?.endpoint ? { endpoint: settings.endpoint, forcePathStyle: true } : {}),
  ...(settings?.accessKeyId && settings.secretAccessKey
    ? { credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey } }
    : {}),
  requestChecksumCalculation: 'WHEN_REQUIRED' as const,
})

/** S3: a presigned GET of the object the release record names, as an attachment. */
export const s3Storage = (settings: S3Settings): ReleaseStorage => {
  const { requestChecksumCalculation: _uploadsOnly, ...clientConfig } = s3ClientConfig(settings)
  const client = new S3Client(clientConfig)
  return {
    kind: 's3',
    linkFor: async (release, _userId, expires, now) => {
      const key = path.posix.join(release.prefix ?? S3_PREFIX, release.filename!)
      const command = new GetObjectCommand({
        Bucket: settings.bucket,
        Key: key,
        ResponseContentDisposition: attachmentDisposition(release.filename!),
      })
      return getSignedUrl(client, command, { expiresIn: Math.max(1, expires - now) })
    },
  }
}

/** Local disk: a link to the service's own file route, signed with an HMAC. */
export const localStorage = (settings: { serverUrl: string; secret: string }): ReleaseStorage => ({
  kind: 'local',
  linkFor: (release, userId, expires) => {
    const signature = signDownload(settings.secret, release.id, userId, expires)
    const query = new URLSearchParams({ user: String(userId), expires: String(expires), signature })
    return Promise.resolve(`${settings.serverUrl}/api/download/file/${release.id}?${query.toString()}`)
  },
})

import crypto from 'node:crypto'
import zlib from 'node:zlib'

import type { Payload } from 'payload'

/**
 * A release whose archive is a real (small, random) gzip file, published at `publishedAt` (in the
 * future: not published). Payload checks an upload's type from its content, so it must be real.
 */
export const createRelease = async (
  payload: Payload,
  version: string,
  publishedAt: Date | null = new Date(Date.now() - 60_000),
) => {
  const bytes = zlib.gzipSync(crypto.randomBytes(2048 + Math.floor(Math.random() * 1024)))
  const release = await payload.create({
    collection: 'releases',
    data: { version, publishedAt: publishedAt?.toISOString() ?? null },
    file: { data: bytes, mimetype: 'application/gzip', name: `starter-kit-${version}.tar.gz`, size: bytes.length },
  })
  return { release, bytes }
}

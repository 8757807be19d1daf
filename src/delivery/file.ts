import fs from 'node:fs'
import path from 'node:path'
import { Readable } from 'node:stream'

import parseRange from 'range-parser'

import type { Release } from '../payload-types'
import { attachmentDisposition } from './storage'

/**
 * Stream an archive (a release or a template) from local disk, honouring a single `Range`
 * (resumable downloads). The path comes from the record only, and must stay inside its folder.
 */
export const streamReleaseFile = async (
  release: Pick<Release, 'filename' | 'mimeType'>,
  staticDir: string,
  rangeHeader: string | null,
): Promise<Response> => {
  const root = path.resolve(staticDir)
  const file = path.resolve(root, release.filename ?? '')
  if (!release.filename || path.dirname(file) !== root) return new Response(null, { status: 404 })
  let size: number
  try {
    size = (await fs.promises.stat(file)).size
  } catch {
    return new Response(null, { status: 404 })
  }
  const headers = new Headers({
    'Accept-Ranges': 'bytes',
    'Cache-Control': 'private, no-store',
    'Content-Disposition': attachmentDisposition(release.filename),
    'Content-Type': release.mimeType ?? 'application/octet-stream',
    'X-Content-Type-Options': 'nosniff',
  })
  let start = 0
  let end = size - 1
  let status = 200
  if (rangeHeader) {
    const ranges = parseRange(size, rangeHeader, { combine: true })
    if (ranges === -1) {
      headers.set('Content-Range', `bytes */${size}`)
      return new Response(null, { status: 416, headers })
    }
    if (ranges !== -2 && ranges.type === 'bytes' && ranges.length === 1) {
      start = ranges[0]!.start
      end = ranges[0]!.end
      status = 206
      headers.set('Content-Range', `bytes ${start}-${end}/${size}`)
    }
  }
  headers.set('Content-Length', String(size === 0 ? 0 : end - start + 1))
  if (size === 0) return new Response(null, { status, headers })
  const stream = fs.createReadStream(file, { start, end })
  return new Response(Readable.toWeb(stream) as ReadableStream, { status, headers })
}

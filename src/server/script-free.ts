import crypto from 'node:crypto'
import zlib from 'node:zlib'

import type { NextFunction, Request, Response } from 'express'
import { LRUCache } from 'lru-cache'

/**
 * Public pages without the framework's runtime (docs/PUBLIC_PAGES.md). Next sends every page with its
 * client runtime (React, its router, the page's RSC payload inline) so that it can hydrate. The public
 * pages have nothing for React to do: their forms are plain forms (server actions post without
 * JavaScript), their links plain links, and what depends on the visitor comes from the islands script
 * (`src/app/(frontend)/_islands/`). A page says so with SCRIPT_FREE_MARKER; on such a page the host
 * removes Next's scripts and script preloads and keeps JSON-LD and the islands script, which it points at
 * the bundle's versioned address.
 */
export const SCRIPT_FREE_MARKER = '<meta name="script-free" content="islands"/>'
/** Where the layout loads the islands from; versioned (`?v=<hash>`) on the pages the host rewrites. */
export const ISLANDS_PATH = '/_kit/islands.js'

const SCRIPT = /<script\b([^>]*)>[\s\S]*?<\/script>/gi
const SCRIPT_PRELOAD = /<link\b(?=[^>]*\brel="(?:preload|modulepreload)")(?=[^>]*\bas="script")[^>]*>/gi
const KEPT_SCRIPT = /\btype="application\/ld\+json"|\bsrc="\/_kit\//i
const ISLANDS_SRC = `src="${ISLANDS_PATH}"`

/** The page without Next's runtime, or null when it does not carry the marker (it stays as it is). */
export const withoutRuntime = (html: string, islandsVersion: string): string | null => {
  if (!html.includes(SCRIPT_FREE_MARKER)) return null
  return html
    .replace(SCRIPT, (whole, attributes: string) => (KEPT_SCRIPT.test(attributes) ? whole : ''))
    .replace(SCRIPT_PRELOAD, '')
    .replace(ISLANDS_SRC, `src="${ISLANDS_PATH}?v=${islandsVersion}"`)
}

/** Pages larger than this are sent as Next writes them. */
const MAX_BUFFERED_BYTES = 1024 * 1024
/** Rewritten pages kept, by the hash of what Next wrote (the same cached bytes for every visitor). */
const REWRITTEN_ENTRIES = 64

/**
 * `withoutRuntime` on a page's bytes, once per distinct page: Next sends a cached page as the same bytes
 * to every visitor, and rewriting it anew (decoded, three replacements, encoded) allocated about six
 * copies of it per request, which on a busy storefront kept the garbage collector at work. A SHA-256
 * of the bytes (native code, no string) finds the rewritten copy; null when the page has no marker.
 */
const rewriter = (islandsVersion: string) => {
  const rewritten = new LRUCache<string, { page: Buffer | false }>({ max: REWRITTEN_ENTRIES })
  return (body: Buffer): Buffer | null => {
    const key = crypto.createHash('sha256').update(body).digest('base64')
    let entry = rewritten.get(key)
    if (!entry) {
      const page = withoutRuntime(body.toString('utf8'), islandsVersion)
      entry = { page: page === null ? false : Buffer.from(page, 'utf8') }
      rewritten.set(key, entry)
    }
    return entry.page || null
  }
}

type Head = [statusCode: number, ...rest: unknown[]]

/**
 * The middleware: on a GET of a listed page (`isCandidate`), what Next writes is held until it ends,
 * then sent without the runtime when it is a 200 HTML page with the marker, else as it was. Headers wait
 * with the body (a deferred writeHead is applied to the response), so Content-Length can follow the
 * body. Goes after compression, so the compression layers see the final body.
 */
export const scriptFreePages = (isCandidate: (path: string) => boolean, islandsVersion: string) => {
  const rewrite = rewriter(islandsVersion)
  return (req: Request, res: Response, next: NextFunction) => {
    if (req.method !== 'GET' || !isCandidate(req.path)) return next()
    /* eslint-disable @typescript-eslint/unbound-method -- kept to be called back with the response as `this` */
    const write = res.write
    const end = res.end
    const writeHead = res.writeHead
    const flushHeaders = res.flushHeaders
    /* eslint-enable @typescript-eslint/unbound-method */
    const writeOriginal = write as (this: Response, chunk: Buffer) => boolean
    const endOriginal = end as (this: Response, chunk: Buffer, callback?: () => void) => Response
    const chunks: Buffer[] = []
    let size = 0
    let head: Head | null = null
    const restore = () => {
      res.write = write
      res.end = end
      res.writeHead = writeHead
      res.flushHeaders = flushHeaders
    }
    const toBuffer = (chunk: unknown, encoding: unknown): Buffer | null =>
      chunk === undefined || chunk === null || typeof chunk === 'function'
        ? null
        : Buffer.isBuffer(chunk)
          ? chunk
          : typeof chunk === 'string'
            ? Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8')
            : Buffer.from(chunk as Uint8Array)
    /** Too large to hold: send what was held, and the rest as it comes. */
    const giveUp = () => {
      restore()
      if (head) writeHead.apply(res, head as Parameters<typeof writeHead>)
      for (const chunk of chunks) writeOriginal.call(res, chunk)
      chunks.length = 0
    }
    res.writeHead = function (this: Response, statusCode: number, ...rest: unknown[]) {
      res.statusCode = statusCode
      for (const arg of rest) {
        if (typeof arg === 'string') res.statusMessage = arg
        else if (Array.isArray(arg))
          for (let i = 0; i + 1 < arg.length; i += 2) res.setHeader(String(arg[i]), String(arg[i + 1]))
        else if (arg && typeof arg === 'object')
          for (const [name, value] of Object.entries(arg as Record<string, string | number | string[] | undefined>))
            if (value !== undefined) res.setHeader(name, value)
      }
      head = [statusCode]
      return this
    } as typeof writeHead
    res.flushHeaders = () => undefined
    res.write = function (this: Response, chunk: unknown, encoding?: unknown, callback?: unknown) {
      const buffer = toBuffer(chunk, encoding)
      if (buffer) {
        chunks.push(buffer)
        size += buffer.length
      }
      const done = typeof encoding === 'function' ? encoding : callback
      if (typeof done === 'function') process.nextTick(done)
      if (size > MAX_BUFFERED_BYTES) giveUp()
      return true
    } as typeof write
    res.end = function (this: Response, chunk?: unknown, encoding?: unknown, callback?: unknown) {
      const last = toBuffer(chunk, encoding)
      if (last) chunks.push(last)
      const done = [chunk, encoding, callback].find((arg) => typeof arg === 'function') as (() => void) | undefined
      restore()
      // Next ends a cached page in one piece: no copy of it then.
      let body: Buffer = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)
      if (res.statusCode === 200 && /^text\/html\b/i.test(String(res.getHeader('content-type') ?? ''))) {
        const rewritten = rewrite(body)
        if (rewritten !== null) {
          body = rewritten
          if (res.hasHeader('content-length')) res.setHeader('content-length', body.length)
        }
      }
      return endOriginal.call(res, body, done)
    } as typeof end
    next()
  }
}

/** The islands bundle as the host serves it: its bytes, brotli and gzip copies, and its version. */
export type IslandsAsset = { body: Buffer; br: Buffer; gzip: Buffer; version: string }

export const islandsAsset = (body: Buffer): IslandsAsset => ({
  body,
  br: zlib.brotliCompressSync(body, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11 } }),
  gzip: zlib.gzipSync(body, { level: 9 }),
  version: crypto.createHash('sha256').update(body).digest('base64url').slice(0, 16),
})

/**
 * GET /_kit/islands.js: immutable for a year at its current version (`?v=`), else revalidated every time
 * (the layout's unversioned address, on the pages that keep Next's runtime).
 */
export const serveIslands = (asset: IslandsAsset) => (req: Request, res: Response) => {
  const versioned = req.query.v === asset.version
  const etag = `"${asset.version}"`
  res.setHeader('content-type', 'text/javascript; charset=utf-8')
  res.setHeader(
    'cache-control',
    versioned ? 'public, max-age=31536000, immutable' : 'public, max-age=0, must-revalidate',
  )
  res.setHeader('etag', etag)
  res.vary('Accept-Encoding')
  if (req.headers['if-none-match'] === etag) {
    res.status(304).end()
    return
  }
  const encoding = req.acceptsEncodings('br') === 'br' ? 'br' : req.acceptsEncodings('gzip') === 'gzip' ? 'gzip' : null
  const body = encoding ? asset[encoding] : asset.body
  if (encoding) res.setHeader('content-encoding', encoding)
  res.setHeader('content-length', body.length)
  res.end(req.method === 'HEAD' ? undefined : body)
}

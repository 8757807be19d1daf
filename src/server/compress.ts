import crypto from 'node:crypto'
import { promisify } from 'node:util'
import zlib from 'node:zlib'

import compression from 'compression'
import type { NextFunction, Request, RequestHandler, Response } from 'express'
import { LRUCache } from 'lru-cache'

const brotli = promisify(zlib.brotliCompress)
const gzip = promisify(zlib.gzip)

/** What is worth compressing: pages, RSC payloads, JSON, scripts, styles, feeds, SVG. */
const COMPRESSIBLE =
  /^(?:text\/|application\/(?:json|javascript|xml|rss\+xml|atom\+xml|manifest\+json)|image\/svg\+xml)/i
/** Bodies under this go as they are (the compression package's own threshold). */
const MIN_BYTES = 1024
/** Pages kept compressed, and the largest page kept: at most 128 x 512 KiB, far less in practice. */
const MEMO_ENTRIES = 128
const MEMO_MAX_BYTES = 512 * 1024
/** A response any cache may keep: no `private`, `no-store` or `no-transform`, and a Cache-Control at all. */
const SHARED = (cacheControl: unknown) =>
  typeof cacheControl === 'string' && !/\b(?:private|no-store|no-transform)\b/i.test(cacheControl)

/** How a kept page leaves for this client: brotli whenever it takes it, whatever order it lists its encodings in (as the compression package), else gzip, else as it is. */
export const pageEncoding = (req: Request): 'br' | 'gzip' | null =>
  req.acceptsEncodings('br') === 'br' ? 'br' : req.acceptsEncodings('gzip') === 'gzip' ? 'gzip' : null

export type CompressionStats = { memoHits: number; memoMisses: number }

/** A request that speaks for someone: Payload's session cookie, or an API key or JWT in Authorization. */
const carriesCredentials = (req: Request): boolean =>
  req.headers.authorization !== undefined || /(?:^|;\s*)payload-token=/.test(req.headers.cookie ?? '')

/**
 * A personal answer: one a signed-in visitor or an API key gets, that no shared cache may keep. It can
 * hold a secret (a license key, a signed download link) beside something the request chose (`?q=`, a
 * search): compressed, its length would tell an eavesdropper how much of a guess matched the secret
 * (BREACH), so it leaves as it is. Public pages, signed-out visitors' pages and every shared-cacheable
 * answer (assets, the cached storefront) are still compressed.
 */
const isPersonal = (req: Request, res: Response): boolean =>
  carriesCredentials(req) && !SHARED(res.getHeader('cache-control'))

/**
 * Compression of every response (brotli or gzip, as the client accepts), in two layers:
 *
 * - A page that any cache may keep (the storefront, the blog, the changelog: Next sends them from its
 *   own cache, the same bytes for every visitor) and that Next ends in one piece is compressed once per
 *   distinct body and encoding, and kept (the 128 most recently used): a launch day's
 *   thousandth visitor costs a hash of the page, not another compression. The body is the key, so a
 *   page Next renders again (a plan changed) is compressed anew.
 * - Everything else (streamed pages, Payload's JSON) goes through the compression package as it is
 *   written; Next flushes a streamed page's chunks through res.flush(). A personal answer (isPersonal:
 *   the dashboard, the admin, a customer's JSON) is not compressed at all.
 *
 * A kept page also gets its ETag here, from the same hash, and a request that already holds it gets 304.
 *
 * Brotli at quality 3 on the fly (about 0.4 ms a page, for 2% more bytes than the library's default of
 * 4) and 5 for kept pages. Already encoded answers, `no-transform`, zip archives and images pass as
 * they are.
 */
export const createCompression = (
  options: { memoEntries?: number } = {},
): { handlers: RequestHandler[]; stats: CompressionStats } => {
  const stats: CompressionStats = { memoHits: 0, memoMisses: 0 }
  const memo = new LRUCache<string, Promise<Buffer>>({ max: options.memoEntries ?? MEMO_ENTRIES })

  const streaming = compression({
    brotli: { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 3 } },
    filter: (req, res) => !isPersonal(req, res) && compression.filter(req, res),
  })

  const encode = (encoding: 'br' | 'gzip', body: Buffer) =>
    encoding === 'br'
      ? brotli(body, {
          params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length },
        })
      : gzip(body, { level: 6 })

  const whole = (req: Request, res: Response, next: NextFunction) => {
    if (req.method !== 'GET') return next()
    const encoding = pageEncoding(req)
    if (!encoding) return next()
    let wrote = false
    // eslint-disable-next-line @typescript-eslint/unbound-method -- kept to be called back with the response as `this`
    const write = res.write
    res.write = function (this: Response, ...args: Parameters<typeof write>) {
      wrote = true
      return write.apply(this, args)
    } as typeof write
    // eslint-disable-next-line @typescript-eslint/unbound-method -- kept to be called back with the response as `this`
    const end = res.end
    res.end = function (this: Response, chunk?: unknown, encodingOrCallback?: unknown, callback?: unknown) {
      const body =
        typeof chunk === 'string'
          ? Buffer.from(chunk, typeof encodingOrCallback === 'string' ? (encodingOrCallback as BufferEncoding) : 'utf8')
          : chunk
      const done = typeof encodingOrCallback === 'function' ? encodingOrCallback : callback
      if (
        wrote ||
        res.headersSent ||
        !Buffer.isBuffer(body) ||
        body.length < MIN_BYTES ||
        body.length > MEMO_MAX_BYTES ||
        res.statusCode !== 200 ||
        res.getHeader('content-encoding') !== undefined ||
        !COMPRESSIBLE.test(String(res.getHeader('content-type') ?? '')) ||
        !SHARED(res.getHeader('cache-control'))
      ) {
        return (end as (...args: unknown[]) => Response).apply(
          this,
          [chunk, encodingOrCallback, callback].filter((arg) => arg !== undefined),
        )
      }
      const digest = crypto.createHash('sha256').update(body).digest('base64')
      // The page's validator (Next's own is off, next.config.mjs): weak, as the bytes differ per encoding.
      res.setHeader('etag', `W/"${digest.slice(0, 27)}"`)
      if (req.fresh) {
        res.statusCode = 304
        res.removeHeader('content-length')
        ;(end as (...args: unknown[]) => Response).call(res, done)
        return res
      }
      const key = `${encoding}:${digest}`
      let compressed = memo.get(key)
      if (compressed) stats.memoHits += 1
      else {
        stats.memoMisses += 1
        compressed = encode(encoding, body)
        memo.set(key, compressed)
        compressed.catch(() => memo.delete(key))
      }
      const send = (encoded: Buffer | null) => {
        if (encoded && encoded.length < body.length) {
          res.setHeader('content-encoding', encoding)
          res.setHeader('content-length', encoded.length)
          res.vary('Accept-Encoding')
          ;(end as (...args: unknown[]) => Response).call(res, encoded, done)
        } else (end as (...args: unknown[]) => Response).call(res, body, done)
      }
      compressed.then(send, () => send(null))
      return res
    } as typeof end
    next()
  }

  return { handlers: [streaming, whole], stats }
}

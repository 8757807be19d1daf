import type { NextFunction, Request, Response } from 'express'
import { LRUCache } from 'lru-cache'

import { onPagesExpired } from '../cache/pages'
import { pageEncoding } from './compress'

/**
 * The host's page cache: a small shared HTTP cache in front of Next for the public pages.
 *
 * Next already serves the storefront, the blog and the changelog from its own cache, but reaching that
 * cache costs its whole request path (route resolution, rewrites, manifests): about 220 KB allocated per
 * visit of a 9 KB page, which on a busy launch day kept the garbage collector at work and set the home
 * page's slow tail. Here the answer Next gave is kept for at most a second and sent again as it was, by
 * the same rules a CDN in front of the service would follow:
 *
 * - only a GET of a listed page (`isCandidate`), by its whole URL, query included;
 * - only a 200 that any cache may keep (`Cache-Control` with `s-maxage` or `public`, and none of
 *   `private`, `no-store`, `no-cache`), HTML, ended in one piece, without `Set-Cookie`, whose `Vary`
 *   names no header the request carries (Next varies its pages on its router's headers: a request
 *   for the RSC payload always goes to Next); `Accept-Encoding` is left to the compression layer,
 *   which encodes each visit's copy as that visitor accepts;
 * - never for a draft-mode (preview) visit, whose cookie makes Next render the draft.
 *
 * A copy lives for the smaller of `s-maxage` and `ttlMs` (1 s): a staff edit is seen within that on
 * this instance (the pages' tags expiring also drops every copy, src/cache/pages.ts), and other
 * instances are bound by Next's own 60 s ceiling as before. Each visit still gets its own request id,
 * its referral cookie, its ETag and 304, and its encoding: the copy is replayed through the layers
 * that add them, and the access log counts it like any request.
 *
 * What those layers then send is kept too, per encoding (`front`, before them): the rewritten,
 * compressed bytes with their ETag. The next visit that asks for the same encoding gets them as they
 * are, with no layer's work (two hashes of the page, the compression package's per-response wrappers),
 * which on a busy storefront were most of what each visit allocated. Such a copy lives no longer than
 * the copy of Next's answer it came from; a referral visit (`?via=`) never gets one.
 */
export type PageCacheStats = {
  /** Visits answered from a copy: replayed through the layers, or (`sent`) sent as the layers left it. */
  hits: number
  misses: number
  stored: number
  /** Of the hits, those sent before the layers, as they left them last time. */
  sent: number
}

export type PageCache = {
  /** Before the compression and page layers: a visit whose encoding's final answer is kept gets it. */
  front: (req: Request, res: Response, next: NextFunction) => void
  /** Last before Next: a visit of a kept page gets Next's answer again, through the layers. */
  handler: (req: Request, res: Response, next: NextFunction) => void
  stats: PageCacheStats
  /** Stop listening for the pages' expiry (a host that closes). */
  close: () => void
}

/** A kept 200: its headers, its bytes, and the request headers it varies on (which a visit must not carry). */
type Entry = { headers: [string, string | number | string[]][]; body: Buffer; varied: string[]; storedAt: number }

/** Whether the visit carries none of the headers the page varies on: the variant that was kept. */
const plainVariant = (req: Request, varied: string[]) => varied.every((name) => req.headers[name] === undefined)

const TTL_MS = 1_000
const MAX_BYTES = 8 * 1024 * 1024
const MAX_ENTRY_BYTES = 512 * 1024

/** Draft mode (src/app/(frontend)/preview): Next renders the draft for this visitor alone. */
const DRAFT_COOKIE = /(?:^|;\s*)(?:__prerender_bypass|__next_preview_data)=/
/** Headers that belong to one response, not to the page: never kept, never replayed. */
const PER_RESPONSE = [
  'set-cookie',
  'x-request-id',
  'content-length',
  'date',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'age',
  // Whether Next's own cache held the page, for that one answer.
  'x-nextjs-cache',
]
/** Next's answer is replayed through the layers, which set the ETag (from the rewritten page) anew. */
const NOT_KEPT_FROM_NEXT = new Set([...PER_RESPONSE, 'etag'])
/** What the layers sent is sent again as it is, its ETag and encoding included. */
const NOT_KEPT_FROM_LAYERS = new Set(PER_RESPONSE)

/** A referral visit: the layers record it and set its cookie (src/affiliates/attribution.ts). */
const REFERRAL = /[?&]via=/
/** On a response whose Next answer is kept (or replayed from a kept copy): when that copy was kept. */
const REPLAYED_FROM = Symbol('page-cache.replayed-from')
/** On a response a watch (`front`'s or `handler`'s) may keep: what it needs when the response ends. */
const FRONT_WATCH = Symbol('page-cache.front-watch')
const NEXT_WATCH = Symbol('page-cache.next-watch')

type Watch = {
  key: string
  req: Request
  /** Written in one piece (one `end`), with its headers set one by one. */
  whole: boolean
  write: Response['write']
  end: Response['end']
  writeHead: Response['writeHead']
}
type Captured = Response & { [FRONT_WATCH]?: Watch; [NEXT_WATCH]?: Watch; [REPLAYED_FROM]?: number }

/**
 * A watch on what a response's `write`, `writeHead` and `end` are given: `watch` puts the three in
 * place, and `ended` gets the watch (the response's own functions already back in place) with `end`'s
 * arguments. The functions are made once and read the response as `this`, their state in its `slot`:
 * a function made per response that holds the response kept every request alive past the young
 * generation's collections (docs/PATCHES.md, body-count).
 */
const watcher = (
  slot: typeof FRONT_WATCH | typeof NEXT_WATCH,
  ended: (res: Captured, watch: Watch, chunk: unknown, encoding: unknown, callback: unknown) => Response,
) => {
  function writeHead(this: Captured, ...args: Parameters<Response['writeHead']>) {
    const watch = this[slot]!
    if (args.some((arg) => typeof arg === 'object' && arg !== null)) watch.whole = false
    return watch.writeHead.apply(this, args)
  }
  function write(this: Captured, ...args: Parameters<Response['write']>) {
    const watch = this[slot]!
    watch.whole = false
    return watch.write.apply(this, args)
  }
  function end(this: Captured, chunk?: unknown, encoding?: unknown, callback?: unknown) {
    const watch = this[slot]!
    this[slot] = undefined
    this.write = watch.write
    this.end = watch.end
    this.writeHead = watch.writeHead
    return ended(this, watch, chunk, encoding, callback)
  }
  return (res: Captured, key: string, req: Request) => {
    /* eslint-disable @typescript-eslint/unbound-method -- called back with the response as `this` */
    res[slot] = { key, req, whole: true, write: res.write, end: res.end, writeHead: res.writeHead }
    /* eslint-enable @typescript-eslint/unbound-method */
    res.write = write as Response['write']
    res.end = end as Response['end']
    res.writeHead = writeHead as Response['writeHead']
  }
}

/** Seconds a shared cache may keep the answer, or null when it may not keep it at all. */
const sharedLifetime = (cacheControl: unknown): number | null => {
  if (typeof cacheControl !== 'string') return null
  if (/\b(?:private|no-store|no-cache)\b/i.test(cacheControl)) return null
  const sMaxAge = /\bs-maxage=(\d+)/i.exec(cacheControl)
  if (sMaxAge) return Number(sMaxAge[1])
  const maxAge = /\bmax-age=(\d+)/i.exec(cacheControl)
  return /\bpublic\b/i.test(cacheControl) && maxAge ? Number(maxAge[1]) : null
}

/** The request headers the answer varies on, without Accept-Encoding; null for `Vary: *`. */
const variedOn = (vary: unknown): string[] | null => {
  const names = (Array.isArray(vary) ? vary.join(',') : typeof vary === 'string' ? vary : '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '' && name !== 'accept-encoding')
  return names.includes('*') ? null : names
}

export const createPageCache = (options: {
  isCandidate: (path: string) => boolean
  ttlMs?: number
  maxBytes?: number
}): PageCache => {
  const ttlMs = options.ttlMs ?? TTL_MS
  const stats: PageCacheStats = { hits: 0, misses: 0, stored: 0, sent: 0 }
  const entries = new LRUCache<string, Entry>({
    maxSize: options.maxBytes ?? MAX_BYTES,
    sizeCalculation: (entry) => entry.body.length + 1024,
    ttl: ttlMs,
  })
  const close = onPagesExpired(() => entries.clear())

  /**
   * A 200 page any shared cache may keep (see above), kept under `key` for what is left of its
   * lifetime counted from `storedAt`; false when it may not be kept.
   */
  const keep = (
    req: Request,
    res: Response,
    key: string,
    body: Buffer,
    options: { notKept: Set<string>; storedAt: number },
  ): boolean => {
    if (res.statusCode !== 200 || body.length === 0 || body.length > MAX_ENTRY_BYTES) return false
    if (res.hasHeader('set-cookie') || !/^text\/html\b/i.test(String(res.getHeader('content-type') ?? ''))) return false
    const lifetime = sharedLifetime(res.getHeader('cache-control'))
    if (lifetime === null || lifetime <= 0) return false
    const varied = variedOn(res.getHeader('vary'))
    if (varied === null || !plainVariant(req, varied)) return false
    const ttl = Math.min(ttlMs, lifetime * 1000) - (Date.now() - options.storedAt)
    if (ttl <= 0) return false
    const headers = Object.entries(res.getHeaders()).filter(
      (header): header is [string, string | number | string[]] =>
        header[1] !== undefined && !options.notKept.has(header[0]),
    )
    entries.set(key, { headers, body, varied, storedAt: options.storedAt }, { ttl })
    return true
  }

  const setKept = (res: Response, entry: Entry) => {
    for (const [name, value] of entry.headers) if (!res.hasHeader(name)) res.setHeader(name, value)
    res.setHeader('age', String(Math.floor((Date.now() - entry.storedAt) / 1000)))
    res.statusCode = 200
  }

  /** The copy, sent through the layers after this one (they add the encoding, the ETag, the 304). */
  const replay = (res: Captured, entry: Entry) => {
    setKept(res, entry)
    res[REPLAYED_FROM] = entry.storedAt
    res.end(entry.body)
  }

  // `front`'s watch on what the layers send: the bytes as they left, with their encoding, kept only
  // when that is the encoding of the key, and only the layers' rendering of a kept copy of Next's
  // answer (the rules above), for no longer than that copy.
  const watchLayers = watcher(FRONT_WATCH, (res, { key, req, whole, end }, chunk, encoding, callback) => {
    const sent = (end as (...args: unknown[]) => Response).apply(
      res,
      [chunk, encoding, callback].filter((arg) => arg !== undefined),
    )
    const sentEncoding = String(res.getHeader('content-encoding') ?? 'identity')
    const length = res.getHeader('content-length')
    const from = res[REPLAYED_FROM]
    if (
      from !== undefined &&
      whole &&
      Buffer.isBuffer(chunk) &&
      key.startsWith(`${sentEncoding} `) &&
      (length === undefined || Number(length) === chunk.length)
    )
      keep(req, res, key, chunk, { notKept: NOT_KEPT_FROM_LAYERS, storedAt: from })
    return sent
  })

  // `handler`'s watch on Next's answer: Next ends a cached page with one string, kept (and handed on)
  // as its bytes.
  const watchNext = watcher(NEXT_WATCH, (res, { key, req, whole, end }, chunk, encoding, callback) => {
    const body =
      typeof chunk === 'string'
        ? Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8')
        : chunk
    const storedAt = Date.now()
    if (
      whole &&
      Buffer.isBuffer(body) &&
      !res.headersSent &&
      keep(req, res, key, body, { notKept: NOT_KEPT_FROM_NEXT, storedAt })
    ) {
      stats.stored += 1
      res[REPLAYED_FROM] = storedAt
    }
    const done = [encoding, callback].find((arg) => typeof arg === 'function')
    return (end as (...args: unknown[]) => Response).apply(
      res,
      [body, done].filter((arg) => arg !== undefined),
    )
  })

  const front = (req: Request, res: Captured, next: NextFunction) => {
    if (
      req.method !== 'GET' ||
      !options.isCandidate(req.path) ||
      DRAFT_COOKIE.test(req.headers.cookie ?? '') ||
      REFERRAL.test(req.originalUrl)
    ) {
      return next()
    }
    const key = `${pageEncoding(req) ?? 'identity'} ${req.originalUrl}`
    const entry = entries.get(key)
    if (entry && plainVariant(req, entry.varied)) {
      stats.hits += 1
      stats.sent += 1
      setKept(res, entry)
      if (req.fresh) {
        res.statusCode = 304
        res.removeHeader('content-encoding')
        res.removeHeader('content-length')
        res.end()
      } else res.end(entry.body)
      return
    }
    watchLayers(res, key, req)
    next()
  }

  const handler = (req: Request, res: Captured, next: NextFunction) => {
    if (req.method !== 'GET' || !options.isCandidate(req.path) || DRAFT_COOKIE.test(req.headers.cookie ?? '')) {
      return next()
    }
    const key = req.originalUrl
    const entry = entries.get(key)
    if (entry && plainVariant(req, entry.varied)) {
      stats.hits += 1
      replay(res, entry)
      return
    }
    stats.misses += 1
    watchNext(res, key, req)
    next()
  }

  return { front, handler, stats, close }
}

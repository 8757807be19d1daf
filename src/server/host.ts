import crypto from 'node:crypto'
import http from 'node:http'
import { type AddressInfo, BlockList } from 'node:net'
import type { Duplex } from 'node:stream'

import express, { type NextFunction, type Request, type Response } from 'express'
import expressStaticGzip from 'express-static-gzip'

import { type CompressionStats, createCompression } from './compress'
import { createPageCache, type PageCacheStats } from './page-cache'
import { ISLANDS_PATH, type IslandsAsset, scriptFreePages, serveIslands } from './script-free'
import { CLIENT_ADDRESS_HEADER, resolveClientAddress } from '../http/client-address'
import { type DirectHandler, sendFetchResponse, toFetchRequest } from './direct'
import { errorBody } from '../http/errors'
import { type Logger, logger as rootLogger, withLogContext } from '../log'

type HostLogger = Pick<Logger, 'debug' | 'info' | 'warn' | 'error'>

export type HostOptions = {
  /** Everything that is not a health check goes here: Next.js, which serves Payload and the pages. */
  handle: (req: http.IncomingMessage, res: http.ServerResponse) => Promise<void> | void
  /** Resolves when the database answers; rejects otherwise. */
  checkDatabase: () => Promise<void>
  /** Largest body of any request, counted as it is read (chunked or not). */
  maxBodyBytes: number
  /** Largest body on a staff upload route, for a request with a staff session. */
  maxUploadBytes: number
  /** Where staff upload files (Payload's upload collections) and how to recognise a staff session. */
  uploads?: { paths: string[]; isStaff: (headers: http.IncomingHttpHeaders) => Promise<boolean> }
  /** Proxies whose X-Forwarded-For is believed (TRUSTED_PROXIES); none by default. */
  trustedProxies?: BlockList
  /** How long shutdown waits for in-flight requests before closing their connections. */
  shutdownTimeoutMs?: number
  /**
   * Paths (exact method and path) answered by `handle` with a fetch Request instead of going through
   * Next: the hot machine-to-machine endpoints, on Payload's own request handling (src/server/direct.ts).
   */
  direct?: { paths: readonly { method: string; path: string }[]; handle: DirectHandler; origin: string }
  /**
   * Next's built assets (`/_next/static` from `.next/static`, production only), served here with the
   * brotli and gzip copies `npm run build:static` wrote beside them; what is not there goes on to Next.
   */
  staticAssets?: { urlPath: string; dir: string }
  /**
   * Pages that may come back from the browser's back-forward cache although Next renders them per
   * request (RESTORABLE_PAGES): their `no-store` becomes `private, no-cache`.
   */
  restorablePages?: readonly string[]
  /**
   * A page visit through an affiliate's link (`?via=<code>` on a GET of a page, not /api, /admin or
   * /_next): answers the Set-Cookie of the referral, or null. The page itself is unchanged; a failure
   * here is logged and the page served as usual.
   */
  referralVisit?: (visit: { via: string; address: string | null }) => Promise<string | null>
  /**
   * The public pages' islands script (src/server/script-free.ts), served at ISLANDS_PATH; the pages
   * SCRIPT_FREE_CANDIDATES lists are sent without Next's runtime when they carry the marker.
   */
  islands?: IslandsAsset
  /**
   * Keep the shared-cacheable public pages (SCRIPT_FREE_CANDIDATES) Next answered for up to `ttlMs`
   * (1 s by default) and send them again without Next (src/server/page-cache.ts).
   */
  pageCache?: { ttlMs?: number }
  /** Where the access lines and the host's own lines go; the process's logger by default. */
  logger?: HostLogger
}

const NOT_PAGES = /^\/(?:api|admin|_next)(?:\/|$)/

/**
 * The public pages that may go without Next's runtime (docs/PUBLIC_PAGES.md): only these are held
 * whole before they are sent, and each is rewritten only when it carries the marker (a premium post,
 * whose body is loaded by React, does not).
 */
export const SCRIPT_FREE_CANDIDATES =
  /^\/(?:|pricing|blog(?:\/[^/]+){0,4}|changelog(?:\/[^/]+){0,2}|sign-in|sign-up|reset-password|checkout\/recovery|unsubscribe\/[^/]+)\/?$/

/** `?via=` on a page GET: the referral cookie set beside the page (src/affiliates/attribution.ts). */
const referralVisits =
  (record: NonNullable<HostOptions['referralVisit']>, log: HostLogger) =>
  async (req: Request, res: Response, next: NextFunction) => {
    const via = req.query.via
    if (
      (req.method === 'GET' || req.method === 'HEAD') &&
      typeof via === 'string' &&
      via !== '' &&
      !NOT_PAGES.test(req.path)
    ) {
      try {
        const address = req.headers[CLIENT_ADDRESS_HEADER]
        const cookie = await record({ via, address: typeof address === 'string' ? address : null })
        if (cookie) res.append('Set-Cookie', cookie)
      } catch (error) {
        log.warn({ err: error }, 'affiliate visit not recorded')
      }
    }
    next()
  }

export type Host = {
  app: express.Express
  server: http.Server
  listen: (port: number, hostname?: string) => Promise<number>
  /** Stop accepting, let in-flight requests finish (up to the timeout), then close every connection. */
  close: () => Promise<void>
  /** How often a kept compressed page was sent again (src/server/compress.ts). */
  compression: CompressionStats
  /** How often a public page was sent from the host's page cache (zeros when it is off). */
  pageCache: PageCacheStats
}

const READY_TIMEOUT_MS = 2_000

const withTimeout = <T>(promise: Promise<T>, ms: number): Promise<T> =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms)
    promise.then(
      (value) => {
        clearTimeout(timer)
        resolve(value)
      },
      (error: unknown) => {
        clearTimeout(timer)
        reject(error)
      },
    )
  })

/**
 * Derive the client address from the socket (and trusted proxies' X-Forwarded-For) and hand it on in
 * one internal header, after deleting any copy the client sent.
 */
const setClientAddress = (trusted: BlockList) => (req: Request, _res: Response, next: NextFunction) => {
  delete req.headers[CLIENT_ADDRESS_HEADER]
  req.rawHeaders = req.rawHeaders.filter(
    (_value, index, raw) => raw[index - (index % 2)]!.toLowerCase() !== CLIENT_ADDRESS_HEADER,
  )
  const address = resolveClientAddress(req.socket.remoteAddress, req.headers['x-forwarded-for'], trusted)
  if (address) {
    req.headers[CLIENT_ADDRESS_HEADER] = address
    req.rawHeaders.push(CLIENT_ADDRESS_HEADER, address)
  }
  next()
}

/** How long a refused request's connection may stay open so its client reads the 413 before it closes. */
const LINGER_MS = 2_000

// PATCH: body-refuse
/**
 * Answer 413 and stop reading the body. The handler may still be waiting for that body: its later
 * writes go nowhere. The connection closes once the client stops sending (or after LINGER_MS):
 * closing it while the client is still sending would reset it, and the client might lose the 413.
 */
const refuse = (req: http.IncomingMessage, res: http.ServerResponse, limit: number) => {
  const socket = req.socket
  if (res.headersSent) {
    socket.destroy()
    return
  }
  res.writeHead(413, {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    connection: 'close',
  })
  res.end(JSON.stringify(errorBody('payload_too_large', `Request bodies are limited to ${limit} bytes.`)))
  const ignore = () => res
  Object.assign(res, {
    writeHead: ignore,
    setHeader: ignore,
    appendHeader: ignore,
    removeHeader: ignore,
    flushHeaders: ignore,
    write: () => true,
    end: (...args: unknown[]) => {
      const callback = args.find((arg) => typeof arg === 'function') as (() => void) | undefined
      if (callback) process.nextTick(callback)
      return res
    },
  })
  res.on('error', () => undefined)
  // Node would destroy the socket as soon as the 413 is written: half-close instead, and linger.
  Object.assign(socket, { destroySoon: () => socket.end() })
  const timer = setTimeout(() => socket.destroy(), LINGER_MS)
  timer.unref()
  socket.once('end', () => socket.destroy())
  socket.once('close', () => clearTimeout(timer))
}

// PATCH: body-count
/** A request's body limit and how much of its body has arrived. */
type BodyCount = { limit: number; received: number; refused: boolean; res: http.ServerResponse }
const BODY_COUNT = Symbol('body count')
type CountedRequest = http.IncomingMessage & { [BODY_COUNT]?: BodyCount }

// eslint-disable-next-line @typescript-eslint/unbound-method -- called with the request as `this`
const readablePush = http.IncomingMessage.prototype.push

const checkBody = (req: CountedRequest, count: BodyCount) => {
  const declared = Number(req.headers['content-length'] ?? 0)
  if (!count.refused && (count.received > count.limit || declared > count.limit)) {
    count.refused = true
    refuse(req, count.res, count.limit)
  }
}

/**
 * Count the body's bytes as the HTTP parser pushes them into the request, whatever Content-Length
 * says (or when it says nothing: chunked). Past the limit, nothing more reaches the request.
 *
 * One function on the app's request prototype (express gives every request that prototype), reading
 * the request's own count: a closure per request put on the request itself, called by Node's parser,
 * kept each request alive past the young generation's collections (measured on /healthz under load:
 * about 300 KB promoted per collection instead of 30 KB, and a full collection every half second).
 */
function countedPush(this: CountedRequest, chunk: unknown, encoding?: BufferEncoding): boolean {
  const count = this[BODY_COUNT]
  if (!count) return readablePush.call(this, chunk, encoding)
  if (chunk === null) return count.refused ? false : readablePush.call(this, chunk, encoding)
  if (count.refused) return true
  count.received += (chunk as Buffer).length
  checkBody(this, count)
  return count.refused ? true : readablePush.call(this, chunk, encoding)
}

/** Start counting a request's body against `limit`; the limit may be lowered once the request is known better. */
const countBody = (req: CountedRequest, res: http.ServerResponse, limit: number) => {
  const count: BodyCount = { limit, received: 0, refused: false, res }
  req[BODY_COUNT] = count
  checkBody(req, count)
  return {
    lowerTo: (lower: number) => {
      count.limit = Math.min(count.limit, lower)
      checkBody(req, count)
    },
  }
}

/** A request that announces no body (no Content-Length, no Transfer-Encoding) has none (RFC 9112, 6.3). */
const announcesBody = (req: http.IncomingMessage) =>
  req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined

/**
 * Pages Next renders per request only because they read the query (an error to show, where to go after
 * signing in) and that hold nothing of the visitor's: no session, no account, no token. Next answers
 * them with `no-store`, which also keeps them out of the back-forward cache (Back after signing in
 * loads the page again, and Lighthouse marks it). `private, no-cache` keeps them out of shared caches
 * and asks the browser to check again before any other reuse. Pages that show the account (the
 * dashboard) or carry a token in the query (/reset-password, /auth/callback) are not listed.
 */
export const RESTORABLE_PAGES = ['/sign-in', '/sign-up'] as const
const RESTORABLE_CACHE_CONTROL = 'private, no-cache, max-age=0, must-revalidate'

// PATCH: restorable-pages
/** Before the headers go out (Next sets Cache-Control itself, late), swap `no-store` on the listed pages. */
const restorable = (pages: readonly string[]) => {
  const listed = new Set(pages)
  return (req: Request, res: Response, next: NextFunction) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || !listed.has(req.path)) return next()
    // eslint-disable-next-line @typescript-eslint/unbound-method -- kept to be called back with the response as `this`
    const writeHead = res.writeHead
    res.writeHead = function (this: Response, ...args: Parameters<typeof writeHead>) {
      const value = res.getHeader('cache-control')
      if (typeof value === 'string' && /\bno-store\b/i.test(value))
        res.setHeader('cache-control', RESTORABLE_CACHE_CONTROL)
      return writeHead.apply(this, args)
    } as typeof writeHead
    next()
  }
}

const UPLOAD_METHODS = new Set(['POST', 'PATCH'])

/** Requests whose client waits for 100 Continue before sending the body (marked by the server). */
const expectsContinue = new WeakSet<http.IncomingMessage>()

/**
 * Every body is limited to maxBodyBytes, counted as it is read. Only a staff upload route (create or
 * update in an upload collection) with a staff session gets maxUploadBytes, whatever the content
 * type says. No body is parsed here: Payload parses its own, and the processor webhook needs the
 * raw bytes.
 */
const limitBodies = (options: HostOptions, log: HostLogger) => {
  const uploadPaths = new Set(options.uploads?.paths ?? [])
  const isUploadRoute = (method: string, path: string) => {
    if (!UPLOAD_METHODS.has(method)) return false
    if (uploadPaths.has(path)) return true
    if (method === 'POST') return false
    const slash = path.lastIndexOf('/')
    return slash > 0 && uploadPaths.has(path.slice(0, slash)) && /^[\w-]{1,64}$/.test(path.slice(slash + 1))
  }
  const limitBody = async (req: Request, res: Response, next: NextFunction) => {
    const uploads = options.uploads && isUploadRoute(req.method, req.path) ? options.uploads : null
    const body = countBody(req, res, uploads ? options.maxUploadBytes : options.maxBodyBytes)
    try {
      if (uploads && !(await uploads.isStaff(req.headers))) body.lowerTo(options.maxBodyBytes)
    } catch (error) {
      body.lowerTo(options.maxBodyBytes)
      log.warn({ err: error }, 'staff session check failed')
    }
    if (res.headersSent) return
    // A client that asked before sending (Expect: 100-continue) sends its body only now.
    if (expectsContinue.has(req)) res.writeContinue()
    next()
  }
  return (req: Request, res: Response, next: NextFunction) => {
    if (announcesBody(req)) return limitBody(req, res, next)
    if (expectsContinue.has(req)) res.writeContinue()
    next()
  }
}

/** A request id we take from the client (or a proxy) as it is: anything else is replaced. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/
const REQUEST_ID_HEADER = 'x-request-id'

const QUIET_PATHS = new Set(['/healthz', '/readyz'])

/**
 * One id per request: the incoming `x-request-id` when it is well formed, else a new UUID. It is
 * echoed in the response, handed on to Next in the same header, and every line written while the
 * request is handled carries it (src/log.ts). When the response is done, one access line: method,
 * path without the query (signed links and sign-in links carry their secrets there), status and
 * duration; never a header or a body.
 */
const identifyRequests = (log: HostLogger) => (req: Request, res: Response, next: NextFunction) => {
  const incoming = req.headers[REQUEST_ID_HEADER]
  const requestId = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : crypto.randomUUID()
  req.headers[REQUEST_ID_HEADER] = requestId
  req.rawHeaders = req.rawHeaders.filter(
    (_value, index, raw) => raw[index - (index % 2)]!.toLowerCase() !== REQUEST_ID_HEADER,
  )
  req.rawHeaders.push(REQUEST_ID_HEADER, requestId)
  res.setHeader(REQUEST_ID_HEADER, requestId)
  const started = performance.now()
  const path = (req.url ?? '/').split('?')[0]!
  res.once('close', () => {
    const line = {
      requestId,
      method: req.method,
      path,
      status: res.statusCode,
      durationMs: Math.round((performance.now() - started) * 10) / 10,
      ...(res.writableFinished ? {} : { aborted: true }),
    }
    if (QUIET_PATHS.has(path)) log.debug(line, 'request')
    else log.info(line, 'request')
  })
  withLogContext({ requestId }, next)
}

export const createHost = (options: HostOptions): Host => {
  const log = options.logger ?? rootLogger.child({ name: 'http' })
  const shutdownTimeoutMs = options.shutdownTimeoutMs ?? 10_000
  let draining = false

  const compressing = createCompression()
  const app = express()
  app.disable('x-powered-by')
  Object.assign(app.request, { push: countedPush })
  app.use(identifyRequests(log))
  app.use(setClientAddress(options.trustedProxies ?? new BlockList()))
  app.use(limitBodies(options, log))

  app.use((_req, res, next) => {
    // While draining, ask keep-alive clients to reconnect elsewhere, and drop each connection as
    // soon as its last response is out, so shutdown does not wait for idle sockets.
    if (draining) res.setHeader('Connection', 'close')
    res.once('finish', () => {
      if (draining) setImmediate(() => server.closeIdleConnections())
    })
    next()
  })

  app.get('/healthz', (_req, res) => {
    res.setHeader('Cache-Control', 'no-store')
    res.json({ status: 'ok' })
  })

  app.get('/readyz', async (_req, res) => {
    res.setHeader('Cache-Control', 'no-store')
    if (draining) {
      res.status(503).json({ status: 'draining' })
      return
    }
    try {
      await withTimeout(options.checkDatabase(), READY_TIMEOUT_MS)
      res.json({ status: 'ready', database: 'ok' })
    } catch (error) {
      log.warn({ err: error }, 'readiness check failed')
      res.status(503).json({ status: 'unavailable', database: 'unreachable' })
    }
  })

  if (options.direct) {
    const { paths, handle, origin } = options.direct
    const direct = new Set(paths.map(({ method, path }) => `${method} ${path}`))
    app.use(async (req, res, next) => {
      if (!direct.has(`${req.method} ${req.path}`)) return next()
      try {
        // The service's own origin (SERVER_URL): the client's Host header is not trusted here.
        await sendFetchResponse(await handle(toFetchRequest(req, origin)), res)
      } catch (error) {
        next(error)
      }
    })
  }

  if (options.islands) app.get(ISLANDS_PATH, serveIslands(options.islands))

  // A public page the layers below sent a moment ago goes out again as they left it (src/server/page-cache.ts).
  const pageCache = options.pageCache
    ? createPageCache({ isCandidate: (path) => SCRIPT_FREE_CANDIDATES.test(path), ttlMs: options.pageCache.ttlMs })
    : null
  if (pageCache) app.use(pageCache.front)

  // Pages and Payload's JSON leave compressed (src/server/compress.ts; next.config.mjs turns Next's own
  // compression off). The direct paths above stay uncompressed: their answers are small and their
  // clients are programs that count every millisecond.
  app.use(...compressing.handlers)
  if (options.staticAssets) {
    // Content-hashed file names: a year, immutable, as Next itself answers them. A file the build wrote
    // no copies of (`next build` without `npm run build:static`) is compressed as it is sent.
    const { urlPath, dir } = options.staticAssets
    app.use(
      urlPath,
      expressStaticGzip(dir, {
        enableBrotli: true,
        orderPreference: ['br', 'gz'],
        index: false,
        serveStatic: {
          immutable: true,
          maxAge: '1y',
          index: false,
          redirect: false,
          dotfiles: 'ignore',
          fallthrough: true,
        },
      }),
    )
  }
  if (options.islands) app.use(scriptFreePages((path) => SCRIPT_FREE_CANDIDATES.test(path), options.islands.version))
  if (options.restorablePages?.length) app.use(restorable(options.restorablePages))
  if (options.referralVisit) app.use(referralVisits(options.referralVisit, log))
  // Last before Next: a kept page is replayed through every layer above (script-free, ETag, encoding).
  if (pageCache) app.use(pageCache.handler)
  app.use(async (req, res, next) => {
    try {
      await options.handle(req, res)
    } catch (error) {
      next(error)
    }
  })
  app.use((error: Error, _req: Request, res: Response, _next: NextFunction) => {
    log.error({ err: error }, 'unhandled request error')
    if (!res.headersSent) res.status(500).json(errorBody('internal_error', 'Something went wrong on our side.'))
  })

  const server = http.createServer(app)
  // Answer Expect: 100-continue only once the body's limit allows it, so an oversized body is never sent.
  server.on('checkContinue', (req: http.IncomingMessage, res: http.ServerResponse) => {
    expectsContinue.add(req)
    server.emit('request', req, res)
  })
  // PATCH: upgrade-close
  // Upgraded connections (websockets: Next's dev reloader) leave the server's own bookkeeping, so
  // server.close() would wait for them forever. They carry no request to finish: end them at once.
  const upgraded = new Set<Duplex>()
  server.on('upgrade', (_req: http.IncomingMessage, socket: Duplex) => {
    upgraded.add(socket)
    socket.once('close', () => upgraded.delete(socket))
  })

  const listen = (port: number, hostname?: string) =>
    new Promise<number>((resolve, reject) => {
      server.once('error', reject)
      server.listen(port, hostname, () => {
        server.off('error', reject)
        resolve((server.address() as AddressInfo).port)
      })
    })

  let closing: Promise<void> | null = null
  const close = () => {
    closing ??= new Promise<void>((resolve) => {
      draining = true
      const timer = setTimeout(() => {
        log.warn(`in-flight requests still open after ${shutdownTimeoutMs} ms: closing their connections`)
        server.closeAllConnections()
      }, shutdownTimeoutMs)
      timer.unref()
      server.close(() => {
        pageCache?.close()
        clearTimeout(timer)
        resolve()
      })
      server.closeIdleConnections()
      for (const socket of upgraded) socket.destroy()
    })
    return closing
  }

  return {
    app,
    server,
    listen,
    close,
    compression: compressing.stats,
    pageCache: pageCache?.stats ?? { hits: 0, misses: 0, stored: 0, sent: 0 },
  }
}

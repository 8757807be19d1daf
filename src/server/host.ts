import http from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Duplex } from 'node:stream'

import express, { type NextFunction, type Request, type Response } from 'express'

import { errorBody } from '../http/errors'

export type HostOptions = {
  /** Everything that is not a health check goes here: Next.js, which serves Payload and the pages. */
  handle: (req: http.IncomingMessage, res: http.ServerResponse) => Promise<void> | void
  /** Resolves when the database answers; rejects otherwise. */
  checkDatabase: () => Promise<void>
  maxBodyBytes: number
  maxUploadBytes: number
  /** How long shutdown waits for in-flight requests before closing their connections. */
  shutdownTimeoutMs?: number
  log?: (message: string) => void
}

export type Host = {
  app: express.Express
  server: http.Server
  listen: (port: number, hostname?: string) => Promise<number>
  /** Stop accepting, let in-flight requests finish (up to the timeout), then close every connection. */
  close: () => Promise<void>
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
 * Refuse bodies over the limit by their declared length before anyone reads them. Uploads
 * (multipart) get their own, larger limit. No body is parsed here: Payload parses its own, and the
 * processor webhook needs the raw bytes.
 */
const limitBodies =
  (maxBodyBytes: number, maxUploadBytes: number) => (req: Request, res: Response, next: NextFunction) => {
    const declared = req.headers['content-length']
    const limit = req.headers['content-type']?.startsWith('multipart/form-data') ? maxUploadBytes : maxBodyBytes
    if (declared !== undefined && Number(declared) > limit) {
      res.status(413).json(errorBody('payload_too_large', `Request bodies are limited to ${limit} bytes.`))
      return
    }
    next()
  }

export const createHost = (options: HostOptions): Host => {
  const log = options.log ?? (() => undefined)
  const shutdownTimeoutMs = options.shutdownTimeoutMs ?? 10_000
  let draining = false

  const app = express()
  app.disable('x-powered-by')
  app.set('trust proxy', 'loopback, linklocal, uniquelocal')

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
      log(`readiness check failed: ${(error as Error).message}`)
      res.status(503).json({ status: 'unavailable', database: 'unreachable' })
    }
  })

  app.use(limitBodies(options.maxBodyBytes, options.maxUploadBytes))
  app.use(async (req, res, next) => {
    try {
      await options.handle(req, res)
    } catch (error) {
      next(error)
    }
  })
  app.use((error: Error, _req: Request, res: Response, _next: NextFunction) => {
    log(`unhandled request error: ${error.message}`)
    if (!res.headersSent) res.status(500).json(errorBody('internal_error', 'Something went wrong on our side.'))
  })

  const server = http.createServer(app)
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
        log(`in-flight requests still open after ${shutdownTimeoutMs} ms: closing their connections`)
        server.closeAllConnections()
      }, shutdownTimeoutMs)
      timer.unref()
      server.close(() => {
        clearTimeout(timer)
        resolve()
      })
      server.closeIdleConnections()
      for (const socket of upgraded) socket.destroy()
    })
    return closing
  }

  return { app, server, listen, close }
}

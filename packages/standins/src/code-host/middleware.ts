import crypto from 'node:crypto'

import type { NextFunction, Request, Response } from 'express'

import type { CodeHost } from './context'
import {
  badCredentials,
  GitHubApiError,
  notFound,
  problemsParsingJson,
  requiresAuthentication,
  serverError,
} from './errors'

type Middleware = (req: Request, res: Response, next: NextFunction) => void

const RATE_LIMIT = 5000

/** Every request lands in `state.requests`, including the ones a failure rule or the token check answers. */
export const recordRequests =
  (host: CodeHost, log: (line: string) => void): Middleware =>
  (req, res, next) => {
    const { method, path } = req
    host.state.requests.push({ method, path, at: Date.now() })
    res.on('finish', () => log(`${method} ${path} -> ${res.statusCode}`))
    next()
  }

/** Shaped like GitHub's, e.g. `E0C6:2D4C0:1C8B5A3:1D2A6F8:65F1A2B3`. */
const requestId = (): string => {
  const hex = crypto.randomBytes(16).toString('hex').toUpperCase()
  return [hex.slice(0, 4), hex.slice(4, 9), hex.slice(9, 16), hex.slice(16, 23), hex.slice(23, 31)].join(':')
}

/**
 * The headers every GitHub answer carries. The rate limit only counts down here: running out of it is
 * something a test injects with `failNext`, so a long development session never locks itself out.
 */
export const githubHeaders = (host: CodeHost): Middleware => {
  let used = 0
  return (_req, res, next) => {
    used += 1
    res.set({
      'content-type': 'application/json; charset=utf-8',
      'x-github-request-id': requestId(),
      'x-github-media-type': 'github.v3; format=json',
      'x-ratelimit-limit': String(RATE_LIMIT),
      'x-ratelimit-remaining': String(Math.max(RATE_LIMIT - used, 0)),
      'x-ratelimit-used': String(Math.min(used, RATE_LIMIT)),
      // The window resets at the next full hour of the stand-in's clock, in epoch seconds like GitHub's.
      'x-ratelimit-reset': String(Math.ceil(host.now().getTime() / 3_600_000) * 3_600),
      'x-ratelimit-resource': 'core',
    })
    next()
  }
}

/** The token of `Authorization: token <token>` or `Authorization: Bearer <token>`, the two GitHub takes. */
const presentedToken = (header: string | undefined): string | undefined =>
  /^(?:token|bearer)\s+(\S+)$/i.exec(header?.trim() ?? '')?.[1]

/** Lets through requests whose token `accepts`; GitHub tells a missing token from a wrong one. */
export const authenticate =
  (accepts: (token: string) => boolean): Middleware =>
  (req, res, next) => {
    const token = presentedToken(req.get('Authorization'))
    if (token !== undefined && accepts(token)) {
      next()
      return
    }
    res.status(401).json(token === undefined ? requiresAuthentication() : badCredentials())
  }

export const unknownUrl: Middleware = (_req, res) => {
  res.status(404).json(notFound().body)
}

const isJsonSyntaxError = (error: unknown): boolean =>
  typeof error === 'object' && error !== null && 'type' in error && error.type === 'entity.parse.failed'

/** The stand-in's own errors answer with their status; a bug in it answers like a GitHub outage. */
export const unexpectedError =
  (log: (line: string) => void) =>
  (error: unknown, req: Request, res: Response, next: NextFunction): void => {
    if (res.headersSent) {
      next(error)
      return
    }
    if (error instanceof GitHubApiError) {
      res.status(error.status).json(error.body)
      return
    }
    if (isJsonSyntaxError(error)) {
      res.status(400).json(problemsParsingJson())
      return
    }
    log(`${req.method} ${req.path} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`)
    res.status(500).json(serverError())
  }

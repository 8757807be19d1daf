import type { NextFunction, Request, Response } from 'express'

import type { Processor } from './context'
import { failureBody } from './errors'

type Middleware = (req: Request, res: Response, next: NextFunction) => void

/** Every request lands in `state.requests`, including the ones a failure rule or the key check answers. */
export const recordRequests =
  (processor: Processor, log: (line: string) => void): Middleware =>
  (req, res, next) => {
    const idempotencyKey = req.get('Idempotency-Key')
    // Routers mounted on a path shorten req.path, so the full path is kept for the log line.
    const { method, path } = req
    processor.state.requests.push({ method, path, ...(idempotencyKey ? { idempotencyKey } : {}), at: Date.now() })
    res.on('finish', () => log(`${method} ${path} -> ${res.statusCode}`))
    next()
  }

const redact = (key: string): string => {
  const prefix = /^[a-z]+_(test|live)_/.exec(key)?.[0] ?? ''
  return `${prefix}${'*'.repeat(Math.max(key.length - prefix.length - 4, 0))}${key.slice(-4)}`
}

/** The key from `Authorization: Bearer <key>`, or from Basic auth with the key as user name (curl -u). */
const presentedKey = (header: string | undefined): string | undefined => {
  const [scheme, credentials] = header?.split(' ') ?? []
  if (!credentials) return undefined
  if (scheme?.toLowerCase() === 'bearer') return credentials
  if (scheme?.toLowerCase() === 'basic') return Buffer.from(credentials, 'base64').toString('utf8').split(':')[0]
  return undefined
}

export const authenticate =
  (secretKey: string): Middleware =>
  (req, res, next) => {
    const key = presentedKey(req.get('Authorization'))
    if (key === secretKey) {
      next()
      return
    }
    const message =
      key === undefined
        ? "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY'). See https://stripe.com/docs/api#authentication for details, or we can help at https://support.stripe.com/."
        : `Invalid API Key provided: ${redact(key)}`
    res.status(401).json({ error: { type: 'invalid_request_error', message } })
  }

export const unknownApiUrl: Middleware = (req, res) => {
  res.status(404).json({
    error: {
      type: 'invalid_request_error',
      message: `Unrecognized request URL (${req.method}: ${req.baseUrl}${req.path}). Please see https://stripe.com/docs or we can help at https://support.stripe.com/.`,
    },
  })
}

/** A bug in the stand-in answers like a Stripe outage instead of express's HTML page. */
export const unexpectedError =
  (log: (line: string) => void) =>
  (error: unknown, req: Request, res: Response, next: NextFunction): void => {
    log(
      `${req.method} ${req.baseUrl}${req.path} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
    )
    if (res.headersSent) {
      next(error)
      return
    }
    res.status(500).json(failureBody(500))
  }

import type { NextFunction, Request, Response } from 'express'

import { beforeHead } from './before-head'
import type { DiscordHost } from './context'
import { DiscordApiError, generalError } from './errors'
import type { AuthorizationKind, DiscordRecordedRequest } from './types'

const authorizationKind = (header: string | undefined): AuthorizationKind => {
  const scheme = header?.trim().split(/\s+/)[0]?.toLowerCase()
  return scheme === 'bot' || scheme === 'bearer' || scheme === 'basic' ? scheme : 'none'
}

/** @discordjs/rest percent-encodes the reason (headers are ASCII); a reason sent raw is kept as it came. */
const decodedReason = (header: string | undefined): string | undefined => {
  if (header === undefined) return undefined
  try {
    return decodeURIComponent(header)
  } catch {
    return header
  }
}

/**
 * Every request lands in `requests`, including the ones a failure rule or the token check answers,
 * with the kind of credentials it carried but never the credentials themselves.
 */
export const recordRequests =
  (host: DiscordHost, log: (line: string) => void) =>
  (req: Request, res: Response, next: NextFunction): void => {
    const { method, path } = req
    const reason = decodedReason(req.get('x-audit-log-reason'))
    const record: DiscordRecordedRequest = {
      method,
      path,
      authorization: authorizationKind(req.get('authorization')),
      status: 0,
      ...(reason === undefined ? {} : { auditLogReason: reason }),
    }
    host.requests.push(record)
    beforeHead(res, (status) => {
      record.status = status
    })
    res.on('finish', () => log(`${method} ${path} -> ${res.statusCode}`))
    next()
  }

export const unknownRoute = (_req: Request, res: Response): void => {
  res.status(404).json(generalError(404))
}

const bodyParserStatus = (error: unknown): number | undefined =>
  typeof error === 'object' &&
  error !== null &&
  'type' in error &&
  'status' in error &&
  typeof error.status === 'number'
    ? error.status
    : undefined

/**
 * The routes' own refusals answer with their status and Discord's body; a malformed JSON body is
 * Discord's bare `400: Bad Request`; a bug in the stand-in answers like a Discord outage, and is logged.
 */
export const errorHandler =
  (log: (line: string) => void) =>
  (error: unknown, req: Request, res: Response, next: NextFunction): void => {
    if (res.headersSent) {
      next(error)
      return
    }
    if (error instanceof DiscordApiError) {
      res.status(error.status).json(error.body)
      return
    }
    const parserStatus = bodyParserStatus(error)
    if (parserStatus !== undefined && parserStatus < 500) {
      res.status(parserStatus).json(generalError(parserStatus))
      return
    }
    log(`${req.method} ${req.path} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`)
    res.status(500).json(generalError(500))
  }

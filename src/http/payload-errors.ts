import {
  type AfterErrorHook,
  APIError,
  AuthenticationError,
  Forbidden,
  LockedAuth,
  NotFound,
  UnauthorizedError,
  UnverifiedEmail,
  ValidationError,
} from 'payload'

import { type ErrorCode, isErrorCode } from './error-sentences'
import { errorBody, type ErrorBody, ServiceError } from './errors'

/**
 * A wrong password, a locked account and an unverified one answer exactly alike: telling them
 * apart would say which emails have accounts (and which are locked).
 */
const INVALID_CREDENTIALS = {
  status: 401,
  code: 'invalid_credentials',
  message: 'The email or password is incorrect.',
} as const

/**
 * Payload's error classes whose names our error codes (`codeOf`) and log levels (payload.config.ts
 * `loggingLevels`) read: Payload names each error after its class (`this.name = this.constructor.name`).
 * Payload is loaded from node_modules unminified (it is in next.config.mjs's serverExternalPackages and
 * build:server keeps packages external), so the names hold in production; scripts/smoke.sh and
 * tests/int/log-secrets.test.ts check them on the production build.
 */
export const ERROR_CLASSES = [
  'APIError',
  'AuthenticationError',
  'ErrorDeletingFile',
  'FileRetrievalError',
  'FileUploadError',
  'Forbidden',
  'InvalidFieldName',
  'InvalidFieldRelationship',
  'Locked',
  'LockedAuth',
  'MissingFile',
  'NotFound',
  'QueryError',
  'UnauthorizedError',
  'UnverifiedEmail',
  'ValidationError',
] as const

type FieldError = { path: string; message: string }

/** `{code, message}` plus Payload's own fields, so the admin UI still marks each invalid field. */
const validationBody = (error: ValidationError): ErrorBody => {
  const fields = ((error.data as { errors?: FieldError[] } | undefined)?.errors ?? []).map(({ path, message }) => ({
    path,
    message,
  }))
  return {
    errors: [
      {
        code: 'validation_error',
        message:
          fields.length > 0 ? fields.map(({ path, message }) => `${path}: ${message}`).join('; ') : error.message,
        name: 'ValidationError',
        data: { errors: fields },
      },
    ],
  }
}

const STATUS_CODES: Record<number, ErrorCode> = {
  400: 'bad_request',
  401: 'unauthenticated',
  403: 'forbidden',
  404: 'not_found',
  409: 'conflict',
  413: 'payload_too_large',
  423: 'locked',
  429: 'rate_limited',
}

/** A named Payload error (QueryError, MissingFile) is its own code; a bare APIError's code follows its status. */
const codeOf = (error: Error, status: number): ErrorCode => {
  const named = error.name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase()
  // A class this service does not know yet answers with its status's code, never an unlisted one.
  return error.name !== 'APIError' && isErrorCode(named) ? named : (STATUS_CODES[status] ?? 'bad_request')
}

type Mapped = { status: number; body: ErrorBody }

const mapError = (error: Error): Mapped => {
  if (error instanceof ServiceError)
    return { status: error.status, body: errorBody(error.code, error.message, error.details) }
  if (error instanceof AuthenticationError || error instanceof LockedAuth || error instanceof UnverifiedEmail) {
    return {
      status: INVALID_CREDENTIALS.status,
      body: errorBody(INVALID_CREDENTIALS.code, INVALID_CREDENTIALS.message),
    }
  }
  if (error instanceof UnauthorizedError) return { status: 401, body: errorBody('unauthenticated', 'Sign in first.') }
  if (error instanceof Forbidden)
    return { status: 403, body: errorBody('forbidden', 'You are not allowed to do this.') }
  if (error instanceof NotFound) return { status: 404, body: errorBody('not_found', 'Not found.') }
  if (error instanceof ValidationError) return { status: 400, body: validationBody(error) }
  const status = (error as { status?: unknown }).status
  if (typeof status === 'number' && status >= 400 && status < 500 && (!(error instanceof APIError) || error.isPublic)) {
    return { status, body: errorBody(codeOf(error, status), error.message) }
  }
  return { status: 500, body: errorBody('internal_error', 'Something went wrong on our side. Please try again.') }
}

/**
 * Payload's own errors (REST and the admin) answer in our error shape with a `code`: a ServiceError
 * thrown inside one of its operations keeps its status and code (and Retry-After), Payload's
 * forbidden, not found, validation and credential errors get stable codes, other client errors a
 * code from their name or status, and anything else is a 500 `internal_error` with no details.
 */
export const serviceErrorResponse: AfterErrorHook = ({ error, req }) => {
  const { status, body } = mapError(error)
  if (error instanceof ServiceError && error.retryAfterSeconds !== undefined) {
    req.responseHeaders = new Headers({ 'Retry-After': String(error.retryAfterSeconds) })
  }
  return { response: body, status }
}

type RouteHandler = (request: Request, context: { params: Promise<{ slug: string[] }> }) => Promise<Response>

// PATCH: unknown-api-path
/**
 * Payload answers an unknown `/api` path with `{message}` before any hook runs: give it our error
 * shape too (404 `not_found`). Only 404s are read; every other response passes through untouched.
 */
export const withErrorShape =
  (handler: RouteHandler): RouteHandler =>
  async (request, context) => {
    const response = await handler(request, context)
    if (response.status !== 404 || !response.headers.get('content-type')?.includes('application/json')) return response
    const body = (await response
      .clone()
      .json()
      .catch(() => null)) as { message?: unknown; errors?: unknown } | null
    if (!body || body.errors !== undefined || typeof body.message !== 'string') return response
    const headers = new Headers(response.headers)
    headers.delete('content-length')
    return Response.json(errorBody('not_found', 'There is no such API path.'), { status: 404, headers })
  }

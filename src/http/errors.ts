/**
 * The one error shape of the custom endpoints: `{"errors":[{"code","message"}]}` with a status.
 * Codes are stable snake_case identifiers clients can branch on; messages are for people.
 */
import type { ErrorCode } from './error-sentences'

export class ServiceError extends Error {
  /**
   * `ClientError` for 4xx (the caller's mistake: Payload logs it at info, message only, through
   * `loggingLevels`), `ServiceError` for 5xx (logged as an error with its stack).
   */
  override name: 'ClientError' | 'ServiceError'
  constructor(
    readonly status: number,
    /** One of the codes of src/http/error-sentences.ts: the compiler refuses any other. */
    readonly code: ErrorCode,
    message: string,
    /** For 429: when the client may try again. */
    readonly retryAfterSeconds?: number,
    /** Facts a client acts on, beside the code and message in the error entry (such as `{used, limit}`). */
    readonly details?: Record<string, string | number | boolean | null>,
  ) {
    super(message)
    this.name = status < 500 ? 'ClientError' : 'ServiceError'
  }
}

export type ErrorBody = { errors: ({ code: string; message: string } & Record<string, unknown>)[] }

export const errorBody = (code: ErrorCode, message: string, details?: Record<string, unknown>): ErrorBody => ({
  errors: [{ ...details, code, message }],
})

/** A Fetch API response for Payload endpoints; unknown errors become a bare 500 with no details. */
export const errorResponse = (error: unknown, headers?: HeadersInit): Response => {
  if (error instanceof ServiceError) {
    const merged = new Headers(headers)
    if (error.retryAfterSeconds !== undefined) merged.set('Retry-After', String(error.retryAfterSeconds))
    return Response.json(errorBody(error.code, error.message, error.details), { status: error.status, headers: merged })
  }
  return Response.json(errorBody('internal_error', 'Something went wrong on our side. Please try again.'), {
    status: 500,
    headers,
  })
}

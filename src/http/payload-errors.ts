import type { AfterErrorHook } from 'payload'

import { errorBody, ServiceError } from './errors'

/**
 * A ServiceError thrown inside one of Payload's own operations (a hook on login, say) answers with
 * our error shape and status, and Retry-After when it has one.
 */
export const serviceErrorResponse: AfterErrorHook = ({ error, req }) => {
  if (!(error instanceof ServiceError)) return
  if (error.retryAfterSeconds !== undefined) {
    req.responseHeaders = new Headers({ 'Retry-After': String(error.retryAfterSeconds) })
  }
  return { response: errorBody(error.code, error.message) as never, status: error.status }
}

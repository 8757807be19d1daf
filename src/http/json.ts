import type { PayloadRequest } from 'payload'

import { ServiceError } from './errors'

/** The request's JSON body, which must be an object; anything else is a 400 `invalid_request`. */
export const readJsonObject = async (req: PayloadRequest): Promise<Record<string, unknown>> => {
  const type = req.headers.get('content-type') ?? ''
  if (!type.toLowerCase().startsWith('application/json')) {
    throw new ServiceError(400, 'invalid_request', 'Send a JSON body with Content-Type: application/json.')
  }
  let body: unknown
  try {
    body = await req.json!()
  } catch {
    throw new ServiceError(400, 'invalid_request', 'The body is not valid JSON.')
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) {
    throw new ServiceError(400, 'invalid_request', 'The body must be a JSON object.')
  }
  return body as Record<string, unknown>
}

import { Readable } from 'node:stream'

import type { Request as ExpressRequest, Response as ExpressResponse } from 'express'

/**
 * The machine-to-machine hot paths the express host hands to Payload's request handling itself,
 * without Next's route layer (docs/PERFORMANCE.md): the same endpoints (endpoints/), the same
 * contracts, auth and error shape, on the process's one Payload instance. Exact method and path;
 * everything else (pages, the admin, the rest of the API) goes through Next.
 */
export const DIRECT_PATHS: readonly { method: string; path: string }[] = [
  { method: 'POST', path: '/api/webhooks/processor' },
  { method: 'POST', path: '/api/licenses/validate' },
  { method: 'GET', path: '/api/licenses/public-key' },
  { method: 'GET', path: '/api/download' },
]

export type DirectHandler = (request: Request) => Promise<Response>

/** The request as a fetch Request: same method, URL, headers; the body streamed as the host reads it (limits apply). */
export const toFetchRequest = (req: ExpressRequest, origin: string): Request => {
  const headers = new Headers()
  for (let index = 0; index < req.rawHeaders.length; index += 2) {
    const name = req.rawHeaders[index]!
    // Connection-level headers are not the request's (and undici refuses some of them).
    if (/^(connection|keep-alive|transfer-encoding|upgrade|expect|host)$/i.test(name)) continue
    headers.append(name, req.rawHeaders[index + 1]!)
  }
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD'
  return new Request(new URL(req.originalUrl ?? req.url, origin), {
    method: req.method,
    headers,
    ...(hasBody ? { body: Readable.toWeb(req) as unknown as ReadableStream, duplex: 'half' } : {}),
  })
}

/**
 * Write a fetch Response to the express response. The direct paths answer a few hundred bytes of
 * JSON: the body is read whole and sent in one write, without a stream and its listeners per answer.
 */
export const sendFetchResponse = async (response: Response, res: ExpressResponse): Promise<void> => {
  const body = response.body ? Buffer.from(await response.arrayBuffer()) : undefined
  res.status(response.status)
  for (const [name, value] of response.headers) {
    if (name === 'set-cookie') continue
    res.setHeader(name, value)
  }
  const cookies = response.headers.getSetCookie()
  if (cookies.length > 0) res.setHeader('set-cookie', cookies)
  res.end(body)
}

import { z } from 'zod'

import { endpoint } from '../src/http/endpoint'
import { ServiceError } from '../src/http/errors'
import { unsubscribe } from '../src/recovery/unsubscribe'

const params = z.object({ token: z.string().max(2_100) })

/** A one-click body is one short field; anything much larger is not one. */
const MAX_BODY_BYTES = 8_192

const invalidToken = () =>
  new ServiceError(400, 'invalid_token', 'This unsubscribe link is not valid: it was altered or not made here.')

/** The form's fields, urlencoded or multipart, as a mail client or the page's button sends them. */
const formOf = async (headers: Headers, raw: string): Promise<URLSearchParams> => {
  const type = headers.get('content-type') ?? ''
  if (/^multipart\/form-data/i.test(type)) {
    const form = await new Response(raw, { headers: { 'content-type': type } }).formData().catch(() => null)
    const fields = new URLSearchParams()
    for (const [name, value] of form?.entries() ?? []) if (typeof value === 'string') fields.append(name, value)
    return fields
  }
  return new URLSearchParams(raw)
}

/**
 * POST /api/email/unsubscribe/:token, the recovery email's List-Unsubscribe URL (RFC 8058): a body of
 * `List-Unsubscribe=One-Click` unsubscribes the address the token seals, with no sign-in → 200
 * `{unsubscribed: true}`; a browser's own form post (the unsubscribe page's button) is sent back to that
 * page with 303. 400 `invalid_token` for a token not made here; 400 `invalid_request` for another body.
 */
export const unsubscribePostEndpoint = endpoint({
  path: '/email/unsubscribe/:token',
  method: 'post',
  body: 'raw',
  params,
  invalid: invalidToken(),
  handler: async ({ req, params }) => {
    if (Number(req.headers.get('content-length') ?? 0) > MAX_BODY_BYTES) {
      throw new ServiceError(400, 'invalid_request', `The body is larger than ${MAX_BODY_BYTES} bytes.`)
    }
    const raw = await req.text!()
    if (Buffer.byteLength(raw) > MAX_BODY_BYTES) {
      throw new ServiceError(400, 'invalid_request', `The body is larger than ${MAX_BODY_BYTES} bytes.`)
    }
    const done = await unsubscribe(req.payload, params.token, {
      oneClick: (await formOf(req.headers, raw)).get('List-Unsubscribe') === 'One-Click',
    })
    if (done === 'invalid_token') throw invalidToken()
    if (done === 'not_one_click') {
      throw new ServiceError(400, 'invalid_request', 'Send List-Unsubscribe=One-Click as the form body (RFC 8058).')
    }
    if (req.headers.get('sec-fetch-mode') === 'navigate') {
      return new Response(null, {
        status: 303,
        headers: { Location: `/unsubscribe/${params.token}?done=1`, 'Cache-Control': 'no-store' },
      })
    }
    return Response.json({ unsubscribed: true }, { headers: { 'Cache-Control': 'no-store' } })
  },
})

/** GET /api/email/unsubscribe/:token: a link opened by a person or a mail scanner; changes nothing, 303 to the page with the button. */
export const unsubscribeGetEndpoint = endpoint({
  path: '/email/unsubscribe/:token',
  method: 'get',
  params,
  invalid: invalidToken(),
  handler: ({ params }) =>
    new Response(null, {
      status: 303,
      headers: { Location: `/unsubscribe/${encodeURIComponent(params.token)}`, 'Cache-Control': 'no-store' },
    }),
})

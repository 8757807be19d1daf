import type { Endpoint } from 'payload'

import { createPortalSession } from '../src/billing/portal'
import type { BillingRuntime } from '../src/billing/runtime'
import { errorResponse, ServiceError } from '../src/http/errors'
import { readJsonObject } from '../src/http/json'

/** POST /api/customer_portal {return_url}: 200 {url} of the processor's billing portal. */
export const customerPortalPostEndpoint = (runtime: BillingRuntime): Endpoint => ({
  path: '/customer_portal',
  method: 'post',
  handler: async (req) => {
    try {
      if (!req.user) throw new ServiceError(401, 'unauthenticated', 'Sign in to manage billing.')
      const body = req.headers.get('content-length') === '0' ? {} : await readJsonObject(req)
      return Response.json(await createPortalSession(req, runtime.require(), body.return_url))
    } catch (error) {
      return errorResponse(error)
    }
  },
})

/** GET /api/customer_portal?return_url=: 303 to the portal (a link or a plain form can open it). */
export const customerPortalGetEndpoint = (runtime: BillingRuntime): Endpoint => ({
  path: '/customer_portal',
  method: 'get',
  handler: async (req) => {
    try {
      const returnUrl = req.searchParams.get('return_url')
      const { url } = await createPortalSession(req, runtime.require(), returnUrl ?? undefined)
      return new Response(null, { status: 303, headers: { Location: url, 'Cache-Control': 'no-store' } })
    } catch (error) {
      return errorResponse(error)
    }
  },
})

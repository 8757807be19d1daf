import type { Endpoint } from 'payload'
import { z } from 'zod'

import { createPortalSession } from '../src/billing/portal'
import type { BillingRuntime } from '../src/billing/runtime'
import { endpoint } from '../src/http/endpoint'
import { MAX_RETURN_PATH } from '../src/http/paths'

const SIGN_IN = 'Sign in to manage billing.'

/** POST /api/customer_portal {return_url}: 200 {url} of the processor's billing portal. */
export const customerPortalPostEndpoint = (runtime: BillingRuntime): Endpoint =>
  endpoint({
    path: '/customer_portal',
    method: 'post',
    auth: SIGN_IN,
    // The portal session checks the path itself (400 invalid_return_url), as for the GET form.
    body: z.object({ return_url: z.unknown().optional() }),
    handler: ({ req, body, address }) => createPortalSession(req, runtime.require(), body.return_url, address),
  })

/** GET /api/customer_portal?return_url=: 303 to the portal (a link or a plain form can open it). */
export const customerPortalGetEndpoint = (runtime: BillingRuntime): Endpoint =>
  endpoint({
    path: '/customer_portal',
    method: 'get',
    auth: SIGN_IN,
    query: z.object({ return_url: z.string().max(MAX_RETURN_PATH).optional() }),
    handler: async ({ req, query, address }) => {
      const { url } = await createPortalSession(req, runtime.require(), query.return_url, address)
      return new Response(null, { status: 303, headers: { Location: url, 'Cache-Control': 'no-store' } })
    },
  })

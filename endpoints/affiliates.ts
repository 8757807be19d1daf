import { z } from 'zod'

import { applyAsAffiliate } from '../src/affiliates/apply'
import { affiliateFigures } from '../src/affiliates/figures'
import { payoutsCsv, recordPayout } from '../src/affiliates/payouts'
import type { AffiliatesRuntime } from '../src/affiliates/runtime'
import { endpoint } from '../src/http/endpoint'
import { ServiceError } from '../src/http/errors'
import { staffReasonBody } from '../src/staff/audit'

const application = z.object({
  code: z.string().max(64).optional(),
  payoutEmail: z.email('must be an email address').max(254),
})

/**
 * POST /api/affiliates {code?, payoutEmail}: the signed-in customer applies → 201 {code, status}; 409
 * `already_applied`, `code_taken`; 400 `invalid_request`. A collection endpoint of `affiliates`, so it
 * answers before Payload's own create (which nobody may use).
 */
export const applyEndpoint = (runtime: () => AffiliatesRuntime) =>
  endpoint({
    path: '/',
    method: 'post',
    auth: 'Sign in to apply to the affiliate program.',
    body: application,
    handler: async ({ req, body, user }) =>
      Response.json(await applyAsAffiliate(req, runtime(), user, body), {
        status: 201,
        headers: { 'Cache-Control': 'no-store' },
      }),
  })

/** GET /api/affiliates/me: the signed-in affiliate's own link, visits, sales and commissions; 404 `not_affiliate`. */
export const meEndpoint = (runtime: () => AffiliatesRuntime) =>
  endpoint({
    path: '/me',
    method: 'get',
    auth: 'Sign in to see your affiliate figures.',
    handler: async ({ req, user }) => {
      const figures = await affiliateFigures(req, runtime().serverUrl, user.id)
      if (!figures)
        throw new ServiceError(404, 'not_affiliate', 'This account has not applied to the affiliate program.')
      return Response.json(figures, { headers: { 'Cache-Control': 'no-store' } })
    },
  })

const payoutBody = staffReasonBody.extend({
  currency: z
    .string()
    .regex(/^[A-Za-z]{3}$/, 'a three-letter currency code')
    .optional(),
})

/** POST /api/staff/affiliates/:id/payouts {reason, currency?} (admins): 201 {payout, payouts}; 409 `nothing_available`. */
export const recordPayoutEndpoint = endpoint({
  path: '/staff/affiliates/:id/payouts',
  method: 'post',
  auth: 'Sign in as an admin to record a payout.',
  admin: 'Only admins record payouts.',
  params: z.object({ id: z.coerce.number().int().positive() }),
  body: payoutBody,
  handler: async ({ req, params, body }) => {
    const payouts = await recordPayout(req, params.id, body)
    return Response.json({ payout: payouts[0], payouts }, { status: 201 })
  },
})

/** GET /api/staff/affiliates/payouts.csv (staff): every payout recorded. */
export const payoutsCsvEndpoint = endpoint({
  path: '/staff/affiliates/payouts.csv',
  method: 'get',
  auth: 'Sign in as staff to export payouts.',
  staff: 'Only staff export payouts.',
  handler: async ({ req }) =>
    new Response(await payoutsCsv(req), {
      headers: {
        'Content-Type': 'text/csv; charset=utf-8',
        'Content-Disposition': 'attachment; filename="affiliate-payouts.csv"',
        'Cache-Control': 'no-store',
      },
    }),
})

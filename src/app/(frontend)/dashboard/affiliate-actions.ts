'use server'

import { revalidatePath } from 'next/cache'
import { redirect } from 'next/navigation'
import { createLocalReq, type PayloadRequest } from 'payload'
import { z } from 'zod'

import { applyAsAffiliate } from '../../../affiliates/apply'
import '../../../affiliates/runtime'
import { runtimeOf } from '../../../config/runtime'
import { ServiceError } from '../../../http/errors'
import { field } from '../../_lib/forms'
import { currentUser, getPayloadClient } from '../../_lib/session'
import { INVALID_EMAIL } from './words'

/**
 * The dashboard's Affiliate program form: the signed-in customer applies, as POST /api/affiliates
 * does (same function, same codes). Back to `#affiliate` with `?affiliate=applied`, or with
 * `?affiliate_error=<code>` the section says in words (src/http/error-sentences.ts).
 */

/** The endpoint's own rule for the payout address (endpoints/affiliates.ts). */
const PAYOUT_EMAIL = z.email().max(254)

const failed = (req: PayloadRequest, error: unknown): never => {
  let code = 'unavailable'
  if (error instanceof ServiceError) code = error.code
  else req.payload.logger.error({ err: error }, 'dashboard action failed')
  redirect(`/dashboard?affiliate_error=${encodeURIComponent(code)}#affiliate`)
}

/** The Apply button (works without JavaScript): an empty code lets the service make one up. */
export async function applyAffiliate(form: FormData) {
  const user = await currentUser()
  if (!user) redirect('/sign-in?next=/dashboard')
  const payload = await getPayloadClient()
  const req = await createLocalReq({ user: { ...user, collection: 'users' } }, payload)
  const payoutEmail = PAYOUT_EMAIL.safeParse(field(form, 'payoutEmail'))
  // The form's own field asks for an address already; this is the browser that skipped it.
  if (!payoutEmail.success) redirect(`/dashboard?affiliate_error=${INVALID_EMAIL}#affiliate`)
  // applyAsAffiliate trims, lowercases and checks the code (400 `invalid_request`).
  const code = field(form, 'code')
  try {
    await applyAsAffiliate(req, runtimeOf(payload, 'affiliates'), user, {
      code: code === '' ? undefined : code,
      payoutEmail: payoutEmail.data,
    })
  } catch (error) {
    failed(req, error)
  }
  revalidatePath('/dashboard')
  redirect('/dashboard?affiliate=applied#affiliate')
}

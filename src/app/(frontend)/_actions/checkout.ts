'use server'

import { headers } from 'next/headers'
import { redirect } from 'next/navigation'
import { createLocalReq } from 'payload'

import { referralFromCookieHeader } from '../../../affiliates/referral'
import { enforceRateLimit } from '../../../auth/rate-limit'
import { createCheckoutSession } from '../../../billing/checkout'
import { billingRuntimeOf } from '../../../billing/runtime'
import { clientAddress } from '../../../http/client-address'
import type { ErrorCode } from '../../../http/error-sentences'
import { ServiceError } from '../../../http/errors'
import { field } from '../../_lib/forms'
import { currentUser, getPayloadClient } from '../../_lib/session'

/** The pages with a pricing table; a failed checkout goes back to the one it came from. */
const ORIGINS: Record<string, string> = {
  '/': '/?checkout_error={code}#pricing',
  '/pricing': '/pricing?checkout_error={code}',
}

/**
 * The Buy form's seats: absent (a plan for one person) is one, digits are the number the checkout
 * checks against the plan's most seats, anything else is refused as that checkout would refuse it.
 */
const quantityOf = (form: FormData): number | undefined | null => {
  const value = form.get('quantity')
  if (value === null) return undefined
  return typeof value === 'string' && /^\d{1,4}$/.test(value.trim()) ? Number(value.trim()) : null
}

/**
 * The pricing table's Buy button (a plain form, so it works without JS; on the home page and
 * /pricing): open the hosted checkout, with the same rate limit as POST /api/checkout_sessions, for
 * the number of seats chosen.
 */
export async function startCheckout(form: FormData) {
  const priceId = form.get('priceId')
  const back = ORIGINS[field(form, 'from') || '/'] ?? ORIGINS['/']!
  const failed: (code: ErrorCode) => never = (code) => redirect(back.replace('{code}', code))
  if (typeof priceId !== 'string') failed('invalid_request')
  const quantity = quantityOf(form)
  if (quantity === null) failed('invalid_quantity')
  const payload = await getPayloadClient()
  const user = await currentUser()
  const requestHeaders = await headers()
  const req = await createLocalReq({ user: user ? { ...user, collection: 'users' } : undefined }, payload)
  const address = clientAddress(requestHeaders)
  let url: string
  try {
    const billing = billingRuntimeOf(payload).require()
    await enforceRateLimit(payload, 'checkout', { address, email: user?.email })
    ;({ url } = await createCheckoutSession(req, billing, {
      priceId: priceId,
      quantity: quantity ?? undefined,
      idempotencyKey: null,
      clientFingerprint: `${address ?? ''}|${requestHeaders.get('user-agent') ?? ''}`,
      referral: referralFromCookieHeader(requestHeaders.get('cookie')),
    }))
  } catch (error) {
    failed(error instanceof ServiceError ? error.code : 'processor_unavailable')
  }
  redirect(url!)
}

'use server'

import { headers } from 'next/headers'
import { redirect } from 'next/navigation'
import { createLocalReq } from 'payload'

import { requestMagicLink } from '../auth/magic-link'
import { enforceRateLimit } from '../auth/rate-limit'
import { currentUser, getPayloadClient } from '../auth/session'
import { clientAddress } from '../http/client-address'
import { ServiceError } from '../http/errors'
import { createCheckoutSession } from './checkout'
import { retrieveCheckoutSession } from './checkout-status'
import { billingRuntimeOf } from './runtime'

const PRODUCT_NAME = 'Starter Kit'

/** The pages with a pricing table; a failed checkout goes back to the one it came from. */
const ORIGINS: Record<string, string> = { '/': '/?checkout_error={code}#pricing', '/pricing': '/pricing?checkout_error={code}' }

/** The pricing table's Buy button (a plain form, so it works without JS): open the hosted checkout. */
export async function startCheckout(form: FormData) {
  const priceId = form.get('priceId')
  const back = ORIGINS[String(form.get('from') ?? '/')] ?? ORIGINS['/']!
  const failed: (code: string) => never = (code) => redirect(back.replace('{code}', code))
  if (typeof priceId !== 'string') failed('invalid_request')
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
      priceId: priceId as string,
      idempotencyKey: null,
      clientFingerprint: `${address ?? ''}|${requestHeaders.get('user-agent') ?? ''}`,
    }))
  } catch (error) {
    failed(error instanceof ServiceError ? error.code : 'processor_unavailable')
  }
  redirect(url)
}

/**
 * The success page's "Email me a sign-in link": to the checkout's own email, read from the processor,
 * so the page never shows the address in full. The link signs in (or creates the account), and the
 * account claims the purchase.
 */
export async function sendCheckoutSignInLink(form: FormData) {
  const sessionId = String(form.get('sessionId') ?? '')
  const payload = await getPayloadClient()
  const page = (query: string) => `/success?session_id=${encodeURIComponent(sessionId)}&${query}`
  let target = page('sent=1')
  try {
    const session = await retrieveCheckoutSession(payload, sessionId)
    const email = (session?.customer_details?.email ?? session?.customer_email ?? '').toLowerCase()
    if (!session || !email || session.metadata?.user_id) throw new ServiceError(400, 'invalid_request', 'No anonymous checkout with that id.')
    await enforceRateLimit(payload, 'magic_link', { address: clientAddress(await headers()), email })
    await requestMagicLink(payload, { email, next: '/dashboard', serverUrl: payload.config.serverURL, productName: PRODUCT_NAME })
  } catch (error) {
    target = page(`link_error=${error instanceof ServiceError ? error.code : 'unavailable'}`)
  }
  redirect(target)
}

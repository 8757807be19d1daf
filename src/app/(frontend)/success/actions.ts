'use server'

import { headers } from 'next/headers'
import { redirect } from 'next/navigation'

import { requestMagicLink } from '../../../auth/magic-link'
import { enforceRateLimit } from '../../../auth/rate-limit'
import { anonymousCheckoutEmail } from '../../../billing/customers'
import { clientAddress } from '../../../http/client-address'
import { PRODUCT_NAME } from '../../../config/product'
import { codeOf, field } from '../../_lib/forms'
import { getPayloadClient } from '../../_lib/session'

/**
 * The success page's "Email me a sign-in link": to the checkout's own email, read from the processor,
 * so the page never shows the address in full. The link signs in (or creates the account), and the
 * account, its address verified by the link, claims the purchase.
 */
export async function sendCheckoutSignInLink(form: FormData) {
  const sessionId = field(form, 'sessionId')
  const payload = await getPayloadClient()
  const page = (query: string) => `/success?session_id=${encodeURIComponent(sessionId)}&${query}`
  let target = page('sent=1')
  try {
    const email = await anonymousCheckoutEmail(payload, sessionId)
    await enforceRateLimit(payload, 'magic_link', { address: clientAddress(await headers()), email })
    await requestMagicLink(payload, {
      email,
      next: '/dashboard',
      serverUrl: payload.config.serverURL,
      productName: PRODUCT_NAME,
    })
  } catch (error) {
    target = page(`link_error=${codeOf(error)}`)
  }
  redirect(target)
}

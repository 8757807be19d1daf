'use server'

import { headers } from 'next/headers'
import { redirect } from 'next/navigation'

import { requestMagicLink, normaliseEmail } from '../../../auth/magic-link'
import { enforceRateLimit } from '../../../auth/rate-limit'
import { resendConfirmation } from '../../../auth/sign-up'
import { clientAddress } from '../../../http/client-address'
import { sameSitePath } from '../../../http/paths'
import { PRODUCT_NAME } from '../../../config/product'
import { back, codeOf, field } from '../../_lib/forms'
import { getPayloadClient, setSessionCookie } from '../../_lib/session'

const nextPath = (form: FormData, serverUrl: string) => sameSitePath(field(form, 'next'), serverUrl) ?? '/dashboard'

/** Sign in with email and password; errors come back as `?error=` so the form works without JS. */
export async function signIn(form: FormData) {
  const payload = await getPayloadClient()
  const email = field(form, 'email').toLowerCase()
  const password = form.get('password')
  if (!email || typeof password !== 'string' || !password) back('/sign-in', 'missing_fields', form)
  let token: string | undefined
  try {
    await enforceRateLimit(payload, 'sign_in', { address: clientAddress(await headers()), email })
    token = (await payload.login({ collection: 'users', data: { email, password: password as string } })).token
  } catch (error) {
    // A wrong password, an unknown, unconfirmed or locked account: one answer (no existence oracle).
    back(
      '/sign-in',
      (error as { code?: string }).code === 'rate_limited' ? 'rate_limited' : 'invalid_credentials',
      form,
    )
  }
  if (!token) back('/sign-in', 'invalid_credentials', form)
  await setSessionCookie(payload, token!)
  redirect(nextPath(form, payload.config.serverURL))
}

/** "Email me a sign-in link": the same answer for every email. */
export async function sendMagicLink(form: FormData) {
  const payload = await getPayloadClient()
  try {
    const email = normaliseEmail(form.get('email'))
    await enforceRateLimit(payload, 'magic_link', { address: clientAddress(await headers()), email })
    await requestMagicLink(payload, {
      email,
      next: field(form, 'next'),
      serverUrl: payload.config.serverURL,
      productName: PRODUCT_NAME,
    })
  } catch (error) {
    back('/sign-in', codeOf(error), form)
  }
  redirect('/sign-in?sent=1')
}

/** "Email me a new confirmation link": the same answer for every email. */
export async function sendConfirmationAgain(form: FormData) {
  const payload = await getPayloadClient()
  try {
    await resendConfirmation(
      payload,
      { email: form.get('email') },
      { serverUrl: payload.config.serverURL, productName: PRODUCT_NAME, address: clientAddress(await headers()) },
    )
  } catch (error) {
    back('/sign-in', codeOf(error), form)
  }
  redirect('/sign-in?confirmation_sent=1')
}

'use server'

import { cookies, headers } from 'next/headers'
import { redirect } from 'next/navigation'

import { SIGN_UP_COOKIE, signUpWithPassword, VERIFY_TTL_MS } from '../../../auth/sign-up'
import { clientAddress } from '../../../http/client-address'
import { PRODUCT_NAME } from '../../../config/product'
import { back, codeOf, field } from '../../_lib/forms'
import { getPayloadClient } from '../../_lib/session'

/**
 * Create a customer account; the answer is the same for an email that already has one. This browser
 * keeps the sign-up's cookie: the confirmation link keeps the chosen password only when opened here.
 */
export async function signUp(form: FormData) {
  const payload = await getPayloadClient()
  try {
    const { browserProof } = await signUpWithPassword(
      payload,
      { email: form.get('email'), password: form.get('password'), name: form.get('name'), next: field(form, 'next') },
      { serverUrl: payload.config.serverURL, productName: PRODUCT_NAME, address: clientAddress(await headers()) },
    )
    ;(await cookies()).set({
      name: SIGN_UP_COOKIE,
      value: browserProof,
      path: '/auth/callback',
      httpOnly: true,
      sameSite: 'lax',
      maxAge: VERIFY_TTL_MS / 1000,
      secure: payload.config.serverURL.startsWith('https://'),
    })
  } catch (error) {
    back('/sign-up', codeOf(error), form)
  }
  redirect('/sign-up?sent=1')
}

'use server'

import { headers } from 'next/headers'
import { redirect } from 'next/navigation'

import { signUpWithPassword } from '../../../auth/sign-up'
import { clientAddress } from '../../../http/client-address'
import { PRODUCT_NAME } from '../../../config/product'
import { back, codeOf, field } from '../../_lib/forms'
import { getPayloadClient } from '../../_lib/session'

/** Create a customer account; the answer is the same for an email that already has one. */
export async function signUp(form: FormData) {
  const payload = await getPayloadClient()
  try {
    await signUpWithPassword(
      payload,
      { email: form.get('email'), password: form.get('password'), name: form.get('name'), next: field(form, 'next') },
      { serverUrl: payload.config.serverURL, productName: PRODUCT_NAME, address: clientAddress(await headers()) },
    )
  } catch (error) {
    back('/sign-up', codeOf(error), form)
  }
  redirect('/sign-up?sent=1')
}

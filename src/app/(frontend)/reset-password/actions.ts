'use server'

import { cookies, headers } from 'next/headers'
import { redirect } from 'next/navigation'

import { issueSession } from '../../../auth/issue-session'
import { completePasswordReset, RECOVERY_COOKIE, requestPasswordReset } from '../../../auth/recovery'
import { clientAddress } from '../../../http/client-address'
import { PRODUCT_NAME } from '../../../config/product'
import { codeOf } from '../../_lib/forms'
import { getPayloadClient, setSessionCookie } from '../../_lib/session'

/** "Forgot your password?": the same answer for every email. */
export async function sendPasswordReset(form: FormData) {
  const payload = await getPayloadClient()
  try {
    await requestPasswordReset(
      payload,
      { email: form.get('email') },
      { serverUrl: payload.config.serverURL, productName: PRODUCT_NAME, address: clientAddress(await headers()) },
    )
  } catch (error) {
    redirect(`/reset-password?error=${codeOf(error)}`)
  }
  redirect('/reset-password?sent=1')
}

/** The new password, with the recovery token /auth/callback left in a cookie; then signed in afresh. */
export async function setNewPassword(form: FormData) {
  const payload = await getPayloadClient()
  const store = await cookies()
  const token = store.get(RECOVERY_COOKIE)?.value
  if (!token) redirect('/reset-password?error=invalid_link')
  let userId: number
  try {
    userId = await completePasswordReset(payload, token, form.get('password'))
  } catch (error) {
    redirect(`/reset-password?step=new&error=${codeOf(error)}`)
  }
  store.delete(RECOVERY_COOKIE)
  // Every other session of this user ends; this browser gets a new one.
  const session = await issueSession(payload, userId!, { endOtherSessions: true })
  await setSessionCookie(payload, session.token)
  redirect('/dashboard')
}

'use server'

import { redirect } from 'next/navigation'

import { cancelAccountDeletionWithToken } from '../../../../privacy/deletion'
import { codeOf } from '../../../_lib/forms'
import { getPayloadClient } from '../../../_lib/session'

/** The Keep my account button: the email's single-use token cancels the pending deletion. */
export async function keepAccount(form: FormData) {
  const payload = await getPayloadClient()
  try {
    await cancelAccountDeletionWithToken(payload, form.get('token'))
  } catch (error) {
    redirect(`/account/keep?error=${codeOf(error)}`)
  }
  redirect('/account/keep?kept=1')
}

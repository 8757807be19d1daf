'use server'

import { redirect } from 'next/navigation'

import { endCurrentSession } from '../../../auth/issue-session'
import { clearSessionCookie, getPayloadClient, pageAuthHeaders } from '../../_lib/session'

/** Sign out (the account menu on every page): the session ends on the server (the old token stops working), then the cookie goes. */
export async function signOut() {
  const payload = await getPayloadClient()
  await endCurrentSession(payload, await pageAuthHeaders())
  await clearSessionCookie(payload)
  redirect('/')
}

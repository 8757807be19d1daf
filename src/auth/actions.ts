'use server'

import { cookies, headers } from 'next/headers'
import { redirect } from 'next/navigation'

import { clientAddress } from '../http/client-address'
import { sameSitePath } from '../http/paths'
import { ServiceError } from '../http/errors'
import { endCurrentSession, issueSession } from './issue-session'
import { requestMagicLink, normaliseEmail } from './magic-link'
import { enforceRateLimit } from './rate-limit'
import { completePasswordReset, RECOVERY_COOKIE, requestPasswordReset } from './recovery'
import { clearSessionCookie, getPayloadClient, pageAuthHeaders, setSessionCookie } from './session'
import { resendConfirmation, signUpWithPassword } from './sign-up'

const PRODUCT_NAME = 'Starter Kit'
const codeOf = (error: unknown) => (error instanceof ServiceError ? error.code : 'unavailable')

const field = (form: FormData, name: string) => {
  const value = form.get(name)
  return typeof value === 'string' ? value.trim() : ''
}

const nextPath = (form: FormData, serverUrl: string) => sameSitePath(field(form, 'next'), serverUrl) ?? '/dashboard'

const back = (page: string, error: string, form: FormData): never => {
  const params = new URLSearchParams({ error })
  const next = field(form, 'next')
  if (next) params.set('next', next)
  redirect(`${page}?${params.toString()}`)
}

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
    back('/sign-in', (error as { code?: string }).code === 'rate_limited' ? 'rate_limited' : 'invalid_credentials', form)
  }
  if (!token) back('/sign-in', 'invalid_credentials', form)
  await setSessionCookie(payload, token!)
  redirect(nextPath(form, payload.config.serverURL))
}

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

/** "Email me a sign-in link": the same answer for every email. */
export async function sendMagicLink(form: FormData) {
  const payload = await getPayloadClient()
  try {
    const email = normaliseEmail(form.get('email'))
    await enforceRateLimit(payload, 'magic_link', { address: clientAddress(await headers()), email })
    await requestMagicLink(payload, { email, next: field(form, 'next'), serverUrl: payload.config.serverURL, productName: PRODUCT_NAME })
  } catch (error) {
    back('/sign-in', codeOf(error), form)
  }
  redirect('/sign-in?sent=1')
}

/** "Forgot your password?": the same answer for every email. */
export async function sendPasswordReset(form: FormData) {
  const payload = await getPayloadClient()
  try {
    await requestPasswordReset(payload, { email: form.get('email') }, { serverUrl: payload.config.serverURL, productName: PRODUCT_NAME, address: clientAddress(await headers()) })
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
    userId = await completePasswordReset(payload, token!, form.get('password'))
  } catch (error) {
    redirect(`/reset-password?step=new&error=${codeOf(error)}`)
  }
  store.delete(RECOVERY_COOKIE)
  // Every other session of this user ends; this browser gets a new one.
  const session = await issueSession(payload, userId!, { endOtherSessions: true })
  await setSessionCookie(payload, session.token)
  redirect('/dashboard')
}

/** Sign out: the session ends on the server (the old token stops working), then the cookie goes. */
export async function signOut() {
  const payload = await getPayloadClient()
  await endCurrentSession(payload, await pageAuthHeaders())
  await clearSessionCookie(payload)
  redirect('/')
}

/** "Email me a new confirmation link": the same answer for every email. */
export async function sendConfirmationAgain(form: FormData) {
  const payload = await getPayloadClient()
  try {
    await resendConfirmation(payload, { email: form.get('email') }, { serverUrl: payload.config.serverURL, productName: PRODUCT_NAME, address: clientAddress(await headers()) })
  } catch (error) {
    back('/sign-in', codeOf(error), form)
  }
  redirect('/sign-in?confirmation_sent=1')
}

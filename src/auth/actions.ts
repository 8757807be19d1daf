'use server'

import { redirect } from 'next/navigation'

import { sameSitePath } from '../http/paths'
import { clearSessionCookie, getPayloadClient, setSessionCookie } from './session'

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
    token = (await payload.login({ collection: 'users', data: { email, password: password as string } })).token
  } catch (error) {
    const code = (error as { code?: string }).code === 'rate_limited' ? 'rate_limited' : (error as Error).name === 'LockedAuth' ? 'locked' : 'invalid_credentials'
    back('/sign-in', code, form)
  }
  if (!token) back('/sign-in', 'invalid_credentials', form)
  await setSessionCookie(payload, token!)
  redirect(nextPath(form, payload.config.serverURL))
}

/** Create a customer account with email and password, then sign in. */
export async function signUp(form: FormData) {
  const payload = await getPayloadClient()
  const email = field(form, 'email').toLowerCase()
  const password = form.get('password')
  const name = field(form, 'name')
  if (!email || typeof password !== 'string') back('/sign-up', 'missing_fields', form)
  if ((password as string).length < 10) back('/sign-up', 'weak_password', form)
  try {
    // overrideAccess: false, no user: exactly the rights of a public sign-up (a customer).
    await payload.create({ collection: 'users', data: { email, password: password as string, name, roles: ['customer'] }, overrideAccess: false })
  } catch {
    back('/sign-up', 'sign_up_failed', form)
  }
  const { token } = await payload.login({ collection: 'users', data: { email, password: password as string } })
  if (token) await setSessionCookie(payload, token)
  redirect(nextPath(form, payload.config.serverURL))
}

export async function signOut() {
  const payload = await getPayloadClient()
  await clearSessionCookie(payload)
  redirect('/')
}

import './../support/oauth-env'
import './../support/billing-env'

import { describe, expect, it } from 'vitest'

import { handleAuthCallback } from '../../src/auth/callback'
import { STATE_COOKIE } from '../../src/auth/oauth'
import { rows } from '../support/billing'
import { oauth } from '../support/oauth-env'
import { api, createUser, usePayload } from '../support/payload'

const payload = usePayload()
const SERVER = 'http://localhost:3000'

/** The whole round trip: our start endpoint, the provider's consent, our callback. */
const signIn = async (
  provider: 'github' | 'google',
  options: { next?: string; deny?: boolean; tamper?: (state: { cookie: string; callback: URL }) => void } = {},
) => {
  const start = await api(
    'GET',
    `/auth/oauth/${provider}${options.next ? `?next=${encodeURIComponent(options.next)}` : ''}`,
  )
  expect(start.status).toBe(302)
  const location = start.headers.get('location')!
  const cookie = /kit-oauth=([^;]+)/.exec(start.headers.get('set-cookie') ?? '')![1]!
  expect(start.headers.get('set-cookie')).toMatch(/HttpOnly/)
  const authorize = new URL(location)
  expect(authorize.searchParams.get('code_challenge_method')).toBe('S256')
  expect(authorize.searchParams.get('state')).toBeTruthy()
  if (provider === 'google') expect(authorize.searchParams.get('nonce')).toBeTruthy()
  const callback = new URL(await oauth.approve(location, { deny: options.deny }))
  const state = { cookie, callback }
  options.tamper?.(state)
  const result = await handleAuthCallback(payload(), {
    params: state.callback.searchParams,
    cookies: new Map([[STATE_COOKIE, state.cookie]]),
  })
  return { result, callback: state.callback, cookie: state.cookie }
}

const userOf = async (cookie: string | undefined) => {
  const token = /payload-token=([^;]+)/.exec(cookie ?? '')?.[1]
  if (!token) return null
  return ((await api('GET', '/users/me', { headers: { authorization: `JWT ${token}` } })).body.user ?? null) as {
    id: number
    email: string
  } | null
}

describe('OAuth sign-in', () => {
  it.each(['github', 'google'] as const)('%s: a new account on first sign-in, the same one after', async (provider) => {
    const email = `${provider}-new-${Date.now()}@example.test`
    oauth.setAccount(provider, {
      id: `${provider}-${Date.now()}`,
      email,
      emailVerified: true,
      name: 'New Person',
      login: 'new-person',
    })
    const first = await signIn(provider, { next: '/dashboard?welcome=1' })
    expect(first.result.location).toBe(`${SERVER}/dashboard?welcome=1`)
    const user = await userOf(first.result.cookie)
    expect(user?.email).toBe(email)
    const stored = await payload().findByID({ collection: 'users', id: user!.id })
    expect(stored).toMatchObject({ roles: ['customer'], emailVerified: true })
    // the state cookie is cleared
    expect(first.result.extraCookies?.[0]).toMatch(/kit-oauth=; .*Max-Age=0/)

    const second = await signIn(provider)
    expect((await userOf(second.result.cookie))?.id).toBe(user!.id)
    expect(await rows(payload(), 'oauth_identities', { user: { equals: user!.id } })).toHaveLength(1)
  })

  it.each(['github', 'google'] as const)('%s: links to an existing account by verified email', async (provider) => {
    const existing = await createUser(payload(), 'customer')
    await payload().update({ collection: 'users', id: existing.user.id, data: { emailVerified: true } })
    oauth.setAccount(provider, {
      id: `${provider}-link-${Date.now()}`,
      email: existing.email,
      emailVerified: true,
      login: 'linker',
    })
    const { result } = await signIn(provider)
    expect((await userOf(result.cookie))?.id).toBe(existing.user.id)
  })

  it.each(['github', 'google'] as const)('%s: an unverified provider email is never linked', async (provider) => {
    const existing = await createUser(payload(), 'customer')
    await payload().update({ collection: 'users', id: existing.user.id, data: { emailVerified: true } })
    oauth.setAccount(provider, {
      id: `${provider}-unverified-${Date.now()}`,
      email: existing.email,
      emailVerified: false,
      login: 'sneaky',
    })
    const { result } = await signIn(provider)
    expect(result.cookie).toBeUndefined()
    expect(result.location).toBe(`${SERVER}/sign-in?error=oauth_email_unverified`)
    expect(await rows(payload(), 'oauth_identities', { user: { equals: existing.user.id } })).toHaveLength(0)
  })

  it('a provider-verified email takes over an account whose own email is unverified: its password stops working', async () => {
    const existing = await createUser(payload(), 'customer', { emailVerified: false })
    oauth.setAccount('github', {
      id: `gh-prehijack-${Date.now()}`,
      email: existing.email,
      emailVerified: true,
      login: 'owner',
    })
    const { result } = await signIn('github')
    expect((await userOf(result.cookie))?.id).toBe(existing.user.id)
    expect((await payload().findByID({ collection: 'users', id: existing.user.id })).emailVerified).toBe(true)
    expect(
      (await api('POST', '/users/login', { body: { email: existing.email, password: existing.password } })).status,
    ).toBe(401)
  })

  it('a mismatched or missing state gives an error and no session', async () => {
    oauth.setAccount('github', {
      id: `gh-state-${Date.now()}`,
      email: `state-${Date.now()}@example.test`,
      emailVerified: true,
      login: 'state',
    })
    const wrongState = await signIn('github', {
      tamper: (state) => state.callback.searchParams.set('state', 'forged-state-value-000000'),
    })
    expect(wrongState.result).toMatchObject({ location: `${SERVER}/sign-in?error=invalid_state` })
    expect(wrongState.result.cookie).toBeUndefined()
    const forgedCookie = await signIn('github', {
      tamper: (state) => (state.cookie = `${state.cookie.split('.')[0]}.forged`),
    })
    expect(forgedCookie.result.location).toBe(`${SERVER}/sign-in?error=invalid_state`)
    const noCookie = await signIn('github', { tamper: (state) => (state.cookie = '') })
    expect(noCookie.result.location).toBe(`${SERVER}/sign-in?error=invalid_state`)
  })

  it('a replayed code gives an error and no session', async () => {
    oauth.setAccount('google', {
      id: `g-replay-${Date.now()}`,
      email: `replay-${Date.now()}@example.test`,
      emailVerified: true,
    })
    const first = await signIn('google')
    expect(first.result.cookie).toBeTruthy()
    const replay = await handleAuthCallback(payload(), {
      params: first.callback.searchParams,
      cookies: new Map([[STATE_COOKIE, first.cookie]]),
    })
    expect(replay.cookie).toBeUndefined()
    expect(replay.location).toBe(`${SERVER}/sign-in?error=oauth_failed`)
  })

  it('a denied consent gives an error and no session', async () => {
    const { result } = await signIn('github', { deny: true })
    expect(result).toMatchObject({ location: `${SERVER}/sign-in?error=oauth_denied` })
    expect(result.cookie).toBeUndefined()
  })

  it('404 unknown_provider', async () => {
    const response = await api('GET', '/auth/oauth/myspace')
    expect(response.status).toBe(404)
    expect(response.body.errors[0].code).toBe('unknown_provider')
  })

  it.each(['//evil.example', '/\\evil.example', '/%2F%2Fevil.example', 'https://evil.example', 'javascript:alert(1)'])(
    'next=%s lands on the dashboard',
    async (next) => {
      oauth.setAccount('github', {
        id: `gh-next-${Math.random()}`,
        email: `next-${Math.random().toString(36).slice(2)}@example.test`,
        emailVerified: true,
        login: 'nexter',
      })
      const { result } = await signIn('github', { next })
      expect(result.location).toBe(`${SERVER}/dashboard`)
    },
  )
})

import './../support/oauth-env'
import './../support/billing-env'

import { beforeAll, describe, expect, it } from 'vitest'

import { handleAuthCallback } from '../../src/auth/callback'
import { issueSession } from '../../src/auth/issue-session'
import { LIMITS } from '../../src/auth/rate-limit'
import { completePasswordReset } from '../../src/auth/recovery'
import { STATE_COOKIE } from '../../src/auth/oauth'
import { PRICES, smtp } from '../support/billing-env'
import { buy, rows, seedStandInPlans } from '../support/billing'
import { oauth } from '../support/oauth-env'
import { api, createUser, usePayload } from '../support/payload'

const payload = usePayload()
const SERVER = 'http://localhost:3000'

beforeAll(async () => {
  await seedStandInPlans(payload())
})

let addressCounter = 0
/** A client address of its own per call, so per-address limits never mix these tests up. */
const from = () => ({ 'x-kit-client-address': `198.18.${Math.floor(addressCounter / 250)}.${(addressCounter++ % 250) + 1}` })

const login = (email: string, password: string) => api('POST', '/users/login', { body: { email, password }, headers: from() })
const me = async (token: string | undefined) => (token ? (await api('GET', '/users/me', { headers: { authorization: `JWT ${token}` } })).body.user : null)
const tokenIn = (cookie: string | undefined) => /payload-token=([^;]+)/.exec(cookie ?? '')?.[1]

/** Run the queued emails; the newest message to `email` whose subject starts so, and its link of `type`. */
const mailTo = async (email: string, subject: string, type: string, count = 1) => {
  await payload().jobs.run({ limit: 100 })
  const matching = () => smtp.messages.filter((m) => JSON.stringify(m.to).includes(email) && (m.subject ?? '').startsWith(subject))
  await smtp.waitFor(() => matching().length >= count)
  const message = matching().at(-1)!
  return new URL(new RegExp(`https?://\\S+type=${type}&token=[A-Za-z0-9_-]+`).exec(message.text ?? '')![0])
}
const callback = (url: URL) => handleAuthCallback(payload(), { params: url.searchParams, cookies: new Map() })

/** A squatter signs up with an address they do not own; the account stays unverified. */
const squat = async (email: string) => {
  const password = 'squatters-password-1'
  expect((await api('POST', '/auth/sign-up', { body: { email, password }, headers: from() })).status).toBe(200)
  const [account] = await rows(payload(), 'users', { email: { equals: email } })
  expect(account?.emailVerified).toBe(false)
  return { account: account!, password }
}

/** The real owner buys anonymously with their address: the license waits for a verified account. */
const anonymousPurchase = async (email: string) => {
  await buy(PRICES.standard, { email })
  const [license] = await rows(payload(), 'licenses', { email: { equals: email } })
  expect(license).toMatchObject({ status: 'active', user: null })
  return license!
}

describe('password sign-in needs a verified email', () => {
  it('an unverified account with the right password gets exactly a wrong password\'s answer', async () => {
    const email = `squat-login-${Date.now()}@example.test`
    const { password } = await squat(email)
    const unverified = await login(email, password)
    const wrong = await login(email, 'not-the-password-1')
    const unknown = await login(`nobody-${Date.now()}@example.test`, password)
    expect(unverified.status).toBe(401)
    expect(unverified.body).toEqual(wrong.body)
    expect(unverified.body).toEqual(unknown.body)
    expect(unverified.headers.get('set-cookie')).toBeNull()
    // the Local API (the sign-in page's action) refuses the same way
    await expect(payload().login({ collection: 'users', data: { email, password } })).rejects.toMatchObject({ name: 'AuthenticationError' })
  })

  it('confirming one\'s own sign-up keeps the password, which then signs in', async () => {
    const email = `own-signup-${Date.now()}@example.test`
    const password = 'my-own-password-1'
    await api('POST', '/auth/sign-up', { body: { email, password }, headers: from() })
    const result = await callback(await mailTo(email, 'Confirm your email address', 'verify'))
    expect(await me(tokenIn(result.cookie))).toMatchObject({ email })
    expect((await login(email, password)).status).toBe(200)
  })
})

describe('a new confirmation link on request', () => {
  const resend = (email: string) => api('POST', '/auth/resend-confirmation', { body: { email }, headers: from() })

  it('answers the same for unverified, verified and unknown emails; only the unverified one gets a link, and only the newest works', async () => {
    const email = `resend-${Date.now()}@example.test`
    await squat(email)
    const first = await mailTo(email, 'Confirm your email address', 'verify')
    const verified = await createUser(payload(), 'customer')
    const answers = await Promise.all([resend(email), resend(verified.email), resend(`nobody-${Date.now()}@example.test`)])
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200])
    expect(answers[1]!.body).toEqual(answers[0]!.body)
    expect(answers[2]!.body).toEqual(answers[0]!.body)
    expect(answers[0]!.body).toEqual({ ok: true })

    const second = await mailTo(email, 'Confirm your email address', 'verify', 2)
    expect(second.toString()).not.toBe(first.toString())
    await payload().jobs.run({ limit: 100 })
    expect(smtp.messages.filter((m) => JSON.stringify(m.to).includes(verified.email))).toHaveLength(0)
    expect((await callback(first)).location).toBe(`${SERVER}/sign-in?error=invalid_link`)
    expect((await callback(second)).cookie).toBeTruthy()
  })

  it('400 for a malformed email; 429 past the per-account limit', async () => {
    expect((await resend('not-an-email')).body.errors[0].code).toBe('invalid_request')
    const email = `resend-limit-${Date.now()}@example.test`
    const [limit] = LIMITS.confirmation.account
    for (let attempt = 0; attempt < limit; attempt += 1) expect((await resend(email)).status).toBe(200)
    const blocked = await resend(email)
    expect(blocked.status).toBe(429)
    expect(blocked.body.errors[0].code).toBe('rate_limited')
  })
})

describe('the address\'s owner takes an unverified account over', () => {
  it('by magic link: every other session ends, the squatter\'s password stops working, purchases are claimed only then', async () => {
    const email = `squat-magic-${Date.now()}@example.test`
    const squatter = await squat(email)
    // a session the squatter holds (say, from before sign-in required a verified email)
    const squatterSession = (await issueSession(payload(), squatter.account.id)).token
    expect(await me(squatterSession)).toMatchObject({ email })
    const license = await anonymousPurchase(email)
    expect(await rows(payload(), 'licenses', { user: { equals: squatter.account.id } })).toHaveLength(0)

    await api('POST', '/auth/magic-link', { body: { email }, headers: from() })
    const result = await callback(await mailTo(email, 'Your sign-in link', 'magiclink'))
    const owner = await me(tokenIn(result.cookie))
    expect(owner).toMatchObject({ id: squatter.account.id, email })

    expect(await me(squatterSession)).toBeNull()
    expect((await login(email, squatter.password)).status).toBe(401)
    expect((await payload().findByID({ collection: 'users', id: squatter.account.id })).emailVerified).toBe(true)
    expect((await rows(payload(), 'licenses', { user: { equals: squatter.account.id } })).map((row) => row.id)).toEqual([license.id])
  })

  it('by a password reset: the new password works, the squatter\'s does not, and the account is verified', async () => {
    const email = `squat-reset-${Date.now()}@example.test`
    const squatter = await squat(email)
    const squatterSession = (await issueSession(payload(), squatter.account.id)).token
    await api('POST', '/auth/forgot-password', { body: { email }, headers: from() })
    const link = await mailTo(email, 'Reset your password', 'recovery')
    await completePasswordReset(payload(), link.searchParams.get('token')!, 'the-owners-password-1')
    expect((await payload().findByID({ collection: 'users', id: squatter.account.id })).emailVerified).toBe(true)
    expect(await me(squatterSession)).toBeNull()
    expect((await login(email, squatter.password)).status).toBe(401)
    expect((await login(email, 'the-owners-password-1')).status).toBe(200)
  })

  it.each(['github', 'google'] as const)('by %s with a provider-verified email: the same takeover, and the identity is linked', async (provider) => {
    const email = `squat-${provider}-${Date.now()}@example.test`
    const squatter = await squat(email)
    const squatterSession = (await issueSession(payload(), squatter.account.id)).token
    const license = await anonymousPurchase(email)
    oauth.setAccount(provider, { id: `${provider}-owner-${Date.now()}`, email, emailVerified: true, login: 'owner' })
    const start = await api('GET', `/auth/oauth/${provider}`)
    const state = /kit-oauth=([^;]+)/.exec(start.headers.get('set-cookie') ?? '')![1]!
    const back = new URL(await oauth.approve(start.headers.get('location')!))
    const result = await handleAuthCallback(payload(), { params: back.searchParams, cookies: new Map([[STATE_COOKIE, state]]) })

    expect(await me(tokenIn(result.cookie))).toMatchObject({ id: squatter.account.id })
    expect(await me(squatterSession)).toBeNull()
    expect((await login(email, squatter.password)).status).toBe(401)
    expect(await rows(payload(), 'oauth_identities', { user: { equals: squatter.account.id } })).toHaveLength(1)
    expect((await rows(payload(), 'licenses', { user: { equals: squatter.account.id } })).map((row) => row.id)).toEqual([license.id])
  })

  it('an email the provider has not verified creates no account and takes none over', async () => {
    const email = `oauth-unverified-${Date.now()}@example.test`
    oauth.setAccount('github', { id: `gh-unverified-${Date.now()}`, email, emailVerified: false, login: 'claims-anything' })
    const start = await api('GET', '/auth/oauth/github')
    const state = /kit-oauth=([^;]+)/.exec(start.headers.get('set-cookie') ?? '')![1]!
    const back = new URL(await oauth.approve(start.headers.get('location')!))
    const result = await handleAuthCallback(payload(), { params: back.searchParams, cookies: new Map([[STATE_COOKIE, state]]) })
    expect(result.cookie).toBeUndefined()
    expect(result.location).toBe(`${SERVER}/sign-in?error=oauth_email_unverified`)
    expect(await rows(payload(), 'users', { email: { equals: email } })).toHaveLength(0)
  })
})

import './../support/oauth-env'
import './../support/billing-env'

import { beforeAll, describe, expect, it } from 'vitest'

import { handleAuthCallback } from '../../src/auth/callback'
import { issueSession } from '../../src/auth/issue-session'
import { RATE_LIMITS } from '../../src/auth/rate-limit'
import { completePasswordReset, RECOVERY_COOKIE } from '../../src/auth/recovery'
import { STATE_COOKIE } from '../../src/auth/oauth'
import { SIGN_UP_COOKIE } from '../../src/auth/sign-up'
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
const from = () => ({
  'x-kit-client-address': `198.18.${Math.floor(addressCounter / 250)}.${(addressCounter++ % 250) + 1}`,
})

const login = (email: string, password: string) =>
  api('POST', '/users/login', { body: { email, password }, headers: from() })
const me = async (token: string | undefined) =>
  token ? (await api('GET', '/users/me', { headers: { authorization: `JWT ${token}` } })).body.user : null
const tokenIn = (cookie: string | undefined) => /payload-token=([^;]+)/.exec(cookie ?? '')?.[1]

/** Run the queued emails; the newest message to `email` whose subject starts so, and its link of `type`. */
const mailTo = async (email: string, subject: string, type: string, count = 1) => {
  await payload().jobs.run({ limit: 100 })
  const matching = () =>
    smtp.messages.filter((m) => JSON.stringify(m.to).includes(email) && (m.subject ?? '').startsWith(subject))
  await smtp.waitFor(() => matching().length >= count)
  const message = matching().at(-1)!
  return new URL(new RegExp(`https?://\\S+type=${type}&token=[A-Za-z0-9_-]+`).exec(message.text ?? '')![0])
}
/** The callback as a browser holding `cookies` (by default none: another browser than the sign-up's) reaches it. */
const callback = (url: URL, cookies: Map<string, string> = new Map()) =>
  handleAuthCallback(payload(), { params: url.searchParams, cookies })
/** The value a Set-Cookie header (or a callback's cookie list) gives `name`. */
const cookieValue = (setCookies: (string | null | undefined)[], name: string) =>
  setCookies
    .map((header) => new RegExp(`(?:^|,\\s*)${name}=([^;]*)`).exec(header ?? '')?.[1])
    .find((value) => value !== undefined)

/** A squatter signs up with an address they do not own; the account stays unverified. Their browser keeps the sign-up cookie. */
const squat = async (email: string) => {
  const password = 'squatters-password-1'
  const answer = await api('POST', '/auth/sign-up', { body: { email, password }, headers: from() })
  expect(answer.status).toBe(200)
  const [account] = await rows(payload(), 'users', { email: { equals: email } })
  expect(account?.emailVerified).toBe(false)
  const browser = new Map([[SIGN_UP_COOKIE, cookieValue([answer.headers.get('set-cookie')], SIGN_UP_COOKIE)!]])
  return { account: account!, password, browser }
}

/** The real owner buys anonymously with their address: the license waits for a verified account. */
const anonymousPurchase = async (email: string) => {
  await buy(PRICES.standard, { email })
  const [license] = await rows(payload(), 'licenses', { email: { equals: email } })
  expect(license).toMatchObject({ status: 'active', user: null })
  return license!
}

describe('password sign-in needs a verified email', () => {
  it("an unverified account with the right password gets exactly a wrong password's answer", async () => {
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
    await expect(payload().login({ collection: 'users', data: { email, password } })).rejects.toMatchObject({
      name: 'AuthenticationError',
    })
  })

  it("confirming one's own sign-up in the browser that signed up keeps the password, which then signs in", async () => {
    const email = `own-signup-${Date.now()}@example.test`
    const password = 'my-own-password-1'
    const answer = await api('POST', '/auth/sign-up', { body: { email, password }, headers: from() })
    const setCookie = answer.headers.get('set-cookie') ?? ''
    expect(setCookie).toMatch(
      new RegExp(`^${SIGN_UP_COOKIE}=[A-Za-z0-9_-]{43}; Path=/auth/callback; HttpOnly; SameSite=Lax; Max-Age=86400`),
    )
    const browser = new Map([[SIGN_UP_COOKIE, cookieValue([setCookie], SIGN_UP_COOKIE)!]])
    const result = await callback(await mailTo(email, 'Confirm your email address', 'verify'), browser)
    expect(await me(tokenIn(result.cookie))).toMatchObject({ email })
    expect((await login(email, password)).status).toBe(200)
    // the sign-up cookie is spent
    expect(cookieValue(result.extraCookies ?? [], SIGN_UP_COOKIE)).toBe('')
  })

  it('signing up with an address that has an account sets a cookie of the same shape: the answer tells nothing', async () => {
    const owner = await createUser(payload(), 'customer')
    const fresh = `cookie-shape-${Date.now()}@example.test`
    const [existing, created] = await Promise.all([
      api('POST', '/auth/sign-up', { body: { email: owner.email, password: 'a-long-password-1' }, headers: from() }),
      api('POST', '/auth/sign-up', { body: { email: fresh, password: 'a-long-password-1' }, headers: from() }),
    ])
    const shape = (header: string | null) => (header ?? '').replace(/=[A-Za-z0-9_-]{43};/, '=<proof>;')
    expect(shape(existing.headers.get('set-cookie'))).toBe(shape(created.headers.get('set-cookie')))
    expect(existing.body).toEqual(created.body)
  })
})

describe('a confirmation proves the email, not the password', () => {
  it("the owner opens the squatter's confirmation link: every session ends, the squatter's password stops working, the owner chooses a password and alone sees the purchase", async () => {
    const email = `squat-confirm-${Date.now()}@example.test`
    const squatter = await squat(email)
    const squatterSession = (await issueSession(payload(), squatter.account.id)).token
    const license = await anonymousPurchase(email)

    // The owner, told to expect a confirmation email, opens it in their own browser (no sign-up cookie).
    const result = await callback(await mailTo(email, 'Confirm your email address', 'verify'))
    expect(result.cookie).toBeUndefined()
    expect(result.location).toBe(`${SERVER}/reset-password?step=new&confirmed=1`)
    const recovery = cookieValue(result.extraCookies ?? [], RECOVERY_COOKIE)
    expect(recovery).toMatch(/^[A-Za-z0-9]{20,}$/)

    // The address is proven (the purchase is the account's now), and nothing the squatter set up works.
    expect((await payload().findByID({ collection: 'users', id: squatter.account.id })).emailVerified).toBe(true)
    expect(await me(squatterSession)).toBeNull()
    const squatterLogin = await login(email, squatter.password)
    expect(squatterLogin.status).toBe(401)
    expect(squatterLogin.headers.get('set-cookie')).toBeNull()

    // The owner chooses a password (the reset page's action) and signs in; the license is theirs alone.
    expect(await completePasswordReset(payload(), decodeURIComponent(recovery!), 'the-owners-own-password-1')).toBe(
      squatter.account.id,
    )
    const owner = await login(email, 'the-owners-own-password-1')
    expect(owner.status).toBe(200)
    const mine = await api('GET', '/licenses?depth=0', { headers: { authorization: `JWT ${owner.body.token}` } })
    expect(mine.body.docs.map((row: { id: number }) => row.id)).toEqual([license.id])
    expect((await login(email, squatter.password)).status).toBe(401)
    expect(await me(squatterSession)).toBeNull()
  })

  it.each(["another sign-up's cookie", 'a forged cookie', 'a huge cookie'])('%s keeps no password', async (kind) => {
    const email = `squat-forged-${Date.now()}-${kind.length}@example.test`
    const squatter = await squat(email)
    const other = await squat(`squat-other-${Date.now()}-${kind.length}@example.test`)
    const value =
      kind === 'a forged cookie'
        ? 'A'.repeat(43)
        : kind === 'a huge cookie'
          ? 'x'.repeat(5000)
          : other.browser.get(SIGN_UP_COOKIE)!
    const result = await callback(
      await mailTo(email, 'Confirm your email address', 'verify'),
      new Map([[SIGN_UP_COOKIE, value]]),
    )
    expect(result.cookie).toBeUndefined()
    expect(result.location).toBe(`${SERVER}/reset-password?step=new&confirmed=1`)
    expect((await login(email, squatter.password)).status).toBe(401)
  })

  it("the squatter's own browser (with its sign-up cookie) is the only place the link keeps their password, and the owner never opens it there", async () => {
    // What the attacker can do: request a new link from their browser. It goes to the owner, and a
    // resent link keeps no password anywhere, even in the browser that signed up.
    const email = `squat-resend-${Date.now()}@example.test`
    const squatter = await squat(email)
    const first = await mailTo(email, 'Confirm your email address', 'verify')
    await api('POST', '/auth/resend-confirmation', { body: { email }, headers: from() })
    const resent = await mailTo(email, 'Confirm your email address', 'verify', 2)
    expect(resent.toString()).not.toBe(first.toString())
    const result = await callback(resent, squatter.browser)
    expect(result.cookie).toBeUndefined()
    expect(result.location).toBe(`${SERVER}/reset-password?step=new&confirmed=1`)
    expect((await login(email, squatter.password)).status).toBe(401)
  })
})

describe('a new confirmation link on request', () => {
  const resend = (email: string) => api('POST', '/auth/resend-confirmation', { body: { email }, headers: from() })

  it('answers the same for unverified, verified and unknown emails; only the unverified one gets a link, and only the newest works', async () => {
    const email = `resend-${Date.now()}@example.test`
    await squat(email)
    const first = await mailTo(email, 'Confirm your email address', 'verify')
    const verified = await createUser(payload(), 'customer')
    const answers = await Promise.all([
      resend(email),
      resend(verified.email),
      resend(`nobody-${Date.now()}@example.test`),
    ])
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200])
    expect(answers[1].body).toEqual(answers[0].body)
    expect(answers[2].body).toEqual(answers[0].body)
    expect(answers[0].body).toEqual({ ok: true })

    const second = await mailTo(email, 'Confirm your email address', 'verify', 2)
    expect(second.toString()).not.toBe(first.toString())
    await payload().jobs.run({ limit: 100 })
    expect(smtp.messages.filter((m) => JSON.stringify(m.to).includes(verified.email))).toHaveLength(0)
    expect((await callback(first)).location).toBe(`${SERVER}/sign-in?error=invalid_link`)
    // A resent link was asked for by anyone who knows the address: it proves the email, and the owner then chooses a password.
    expect((await callback(second)).location).toBe(`${SERVER}/reset-password?step=new&confirmed=1`)
  })

  it('400 for a malformed email; 429 past the per-account limit', async () => {
    expect((await resend('not-an-email')).body.errors[0].code).toBe('invalid_request')
    const email = `resend-limit-${Date.now()}@example.test`
    const limit = RATE_LIMITS['confirmation:account'].points
    for (let attempt = 0; attempt < limit; attempt += 1) expect((await resend(email)).status).toBe(200)
    const blocked = await resend(email)
    expect(blocked.status).toBe(429)
    expect(blocked.body.errors[0].code).toBe('rate_limited')
  })
})

describe("the address's owner takes an unverified account over", () => {
  it("by magic link: every other session ends, the squatter's password stops working, purchases are claimed only then", async () => {
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
    expect((await rows(payload(), 'licenses', { user: { equals: squatter.account.id } })).map((row) => row.id)).toEqual(
      [license.id],
    )
  })

  it("by a password reset: the new password works, the squatter's does not, and the account is verified", async () => {
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

  it.each(['github', 'google'] as const)(
    'by %s with a provider-verified email: the same takeover, and the identity is linked',
    async (provider) => {
      const email = `squat-${provider}-${Date.now()}@example.test`
      const squatter = await squat(email)
      const squatterSession = (await issueSession(payload(), squatter.account.id)).token
      const license = await anonymousPurchase(email)
      oauth.setAccount(provider, { id: `${provider}-owner-${Date.now()}`, email, emailVerified: true, login: 'owner' })
      const start = await api('GET', `/auth/oauth/${provider}`)
      const state = /kit-oauth=([^;]+)/.exec(start.headers.get('set-cookie') ?? '')![1]!
      const back = new URL(await oauth.approve(start.headers.get('location')!))
      const result = await handleAuthCallback(payload(), {
        params: back.searchParams,
        cookies: new Map([[STATE_COOKIE, state]]),
      })

      expect(await me(tokenIn(result.cookie))).toMatchObject({ id: squatter.account.id })
      expect(await me(squatterSession)).toBeNull()
      expect((await login(email, squatter.password)).status).toBe(401)
      expect(await rows(payload(), 'oauth_identities', { user: { equals: squatter.account.id } })).toHaveLength(1)
      expect(
        (await rows(payload(), 'licenses', { user: { equals: squatter.account.id } })).map((row) => row.id),
      ).toEqual([license.id])
    },
  )

  it('an email the provider has not verified creates no account and takes none over', async () => {
    const email = `oauth-unverified-${Date.now()}@example.test`
    oauth.setAccount('github', {
      id: `gh-unverified-${Date.now()}`,
      email,
      emailVerified: false,
      login: 'claims-anything',
    })
    const start = await api('GET', '/auth/oauth/github')
    const state = /kit-oauth=([^;]+)/.exec(start.headers.get('set-cookie') ?? '')![1]!
    const back = new URL(await oauth.approve(start.headers.get('location')!))
    const result = await handleAuthCallback(payload(), {
      params: back.searchParams,
      cookies: new Map([[STATE_COOKIE, state]]),
    })
    expect(result.cookie).toBeUndefined()
    expect(result.location).toBe(`${SERVER}/sign-in?error=oauth_email_unverified`)
    expect(await rows(payload(), 'users', { email: { equals: email } })).toHaveLength(0)
  })
})

import './../support/billing-env'

import { describe, expect, it } from 'vitest'

import { handleAuthCallback } from '../../src/auth/callback'
import { RATE_LIMITS } from '../../src/auth/rate-limit'
import { completePasswordReset, RECOVERY_COOKIE } from '../../src/auth/recovery'
import { SIGN_UP_COOKIE } from '../../src/auth/sign-up'
import { smtp } from '../support/billing-env'
import { api, createUser, usePayload } from '../support/payload'

const payload = usePayload()
const SERVER = 'http://localhost:3000'

const mailTo = async (email: string, subjectStart: string) => {
  await payload().jobs.run({ limit: 100 })
  return smtp.waitFor(
    (message) => JSON.stringify(message.to).includes(email) && (message.subject ?? '').startsWith(subjectStart),
  )
}
const linkIn = (text: string | undefined, type: string) =>
  new URL(new RegExp(`https?://\\S+type=${type}&token=[^\\s"<]+`).exec(text ?? '')![0])
const callback = (url: URL, cookies = new Map<string, string>()) =>
  handleAuthCallback(payload(), { params: url.searchParams, cookies })
const tokenIn = (cookie: string | undefined) => /payload-token=([^;]+)/.exec(cookie ?? '')?.[1]
const me = async (token: string | undefined) =>
  (await api('GET', '/users/me', { headers: { authorization: `JWT ${token}` } })).body.user

describe('sign-up and email verification', () => {
  it('creates an unverified customer, emails a confirmation link, and the link verifies and signs in', async () => {
    const email = `signup-${Date.now()}@example.test`
    const signedUp = await api('POST', '/auth/sign-up', { body: { email, password: 'a-long-password-1', name: 'Ada' } })
    expect(signedUp).toMatchObject({ status: 200, body: { ok: true } })
    const browser = new Map([
      [SIGN_UP_COOKIE, /kit-signup=([^;]+)/.exec(signedUp.headers.get('set-cookie') ?? '')![1]!],
    ])
    const [created] = (await payload().find({ collection: 'users', where: { email: { equals: email } } })).docs
    expect(created).toMatchObject({ emailVerified: false, roles: ['customer'], name: 'Ada' })

    const message = await mailTo(email, 'Confirm your email address')
    expect(message.html).toContain('type=verify')
    const link = linkIn(message.text, 'verify')
    expect(link.origin).toBe(SERVER)
    const result = await callback(link, browser)
    expect(result.location).toBe(`${SERVER}/dashboard`)
    expect((await me(tokenIn(result.cookie)))?.email).toBe(email)
    expect((await payload().findByID({ collection: 'users', id: created!.id })).emailVerified).toBe(true)
    // the link works once
    expect((await callback(link, browser)).location).toBe(`${SERVER}/sign-in?error=invalid_link`)
  })

  it('an email that already has an account gets the same answer, and its owner an email instead', async () => {
    const owner = await createUser(payload(), 'customer')
    const fresh = `fresh-${Date.now()}@example.test`
    const [existingAnswer, newAnswer] = await Promise.all([
      api('POST', '/auth/sign-up', { body: { email: owner.email, password: 'another-password-1' } }),
      api('POST', '/auth/sign-up', { body: { email: fresh, password: 'another-password-1' } }),
    ])
    expect(existingAnswer.status).toBe(newAnswer.status)
    expect(existingAnswer.body).toEqual(newAnswer.body)
    const notice = await mailTo(owner.email, 'You already have an account')
    expect(notice.text).toContain(`${SERVER}/sign-in`)
    // the existing account is untouched: its password still works
    expect((await api('POST', '/users/login', { body: { email: owner.email, password: owner.password } })).status).toBe(
      200,
    )
  })

  it('400 for a short password or a malformed email', async () => {
    expect(
      (await api('POST', '/auth/sign-up', { body: { email: 'x@example.test', password: 'short' } })).body.errors[0]
        .code,
    ).toBe('weak_password')
    expect(
      (await api('POST', '/auth/sign-up', { body: { email: 'nope', password: 'a-long-password-1' } })).body.errors[0]
        .code,
    ).toBe('invalid_request')
  })
})

describe('password reset', () => {
  const requestReset = (email: string, headers: Record<string, string> = {}) =>
    api('POST', '/auth/forgot-password', { body: { email }, headers })

  it('emails a link on SERVER_URL (a forged Host header changes nothing); the token is single use; other sessions end', async () => {
    const user = await createUser(payload(), 'customer')
    const otherDevice = user.token
    expect(await me(otherDevice)).toBeTruthy()
    const answer = await requestReset(user.email, { host: 'evil.example', 'x-forwarded-host': 'evil.example' })
    const unknown = await requestReset(`nobody-${Date.now()}@example.test`)
    expect(answer).toMatchObject({ status: 200, body: { ok: true } })
    expect(unknown.body).toEqual(answer.body)

    const message = await mailTo(user.email, 'Reset your password')
    const link = linkIn(message.text, 'recovery')
    expect(link.origin).toBe(SERVER)
    expect(message.html).not.toContain('evil.example')

    const recovery = await callback(link)
    // no session yet: the new password comes first
    expect(recovery.cookie).toBeUndefined()
    expect(recovery.location).toBe(`${SERVER}/reset-password?step=new`)
    const recoveryToken = decodeURIComponent(
      new RegExp(`${RECOVERY_COOKIE}=([^;]+)`).exec(recovery.extraCookies?.[0] ?? '')![1]!,
    )

    const userId = await completePasswordReset(payload(), recoveryToken, 'a-brand-new-password')
    expect(userId).toBe(user.user.id)
    expect(
      (await api('POST', '/users/login', { body: { email: user.email, password: 'a-brand-new-password' } })).status,
    ).toBe(200)
    expect((await api('POST', '/users/login', { body: { email: user.email, password: user.password } })).status).toBe(
      401,
    )
    // the old session is gone
    expect(await me(otherDevice)).toBeNull()
    // single use
    await expect(completePasswordReset(payload(), recoveryToken, 'yet-another-password')).rejects.toMatchObject({
      code: 'invalid_link',
    })
    expect((await callback(link)).location).toBe(`${SERVER}/sign-in?error=invalid_link`)
  })

  it('400 for a malformed email, 429 with Retry-After past the per-account limit', async () => {
    expect((await requestReset('not-an-email')).body.errors[0].code).toBe('invalid_request')
    const email = `reset-limit-${Date.now()}@example.test`
    const limit = RATE_LIMITS['password_reset:account'].points
    for (let attempt = 0; attempt < limit; attempt += 1) {
      expect((await requestReset(email, { 'x-kit-client-address': `192.0.2.${attempt + 10}` })).status).toBe(200)
    }
    const blocked = await requestReset(email, { 'x-kit-client-address': '192.0.2.250' })
    expect(blocked.status).toBe(429)
    expect(blocked.body.errors[0].code).toBe('rate_limited')
    expect(blocked.headers.get('retry-after')).toBeTruthy()
  })

  it('an expired reset link is refused', async () => {
    const user = await createUser(payload(), 'customer')
    await requestReset(user.email)
    const link = linkIn((await mailTo(user.email, 'Reset your password')).text, 'recovery')
    await payload().db.pool.query(
      `UPDATE users SET reset_password_expiration = now() - interval '1 second' WHERE id = $1`,
      [user.user.id],
    )
    expect((await callback(link)).location).toBe(`${SERVER}/sign-in?error=invalid_link`)
    await expect(
      completePasswordReset(payload(), link.searchParams.get('token')!, 'a-brand-new-password'),
    ).rejects.toMatchObject({ code: 'invalid_link' })
  })
})

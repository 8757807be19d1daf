import './../support/billing-env'

import { afterEach, describe, expect, it } from 'vitest'

import { RATE_LIMITS } from '../../src/auth/rate-limit'
import { smtp } from '../support/billing-env'
import { api, createUser, graphql, usePayload } from '../support/payload'

/*
 * Payload's own auth routes on users that duplicate the service's (forgot-password, reset-password,
 * verify, unlock). The attacks: telling known from unknown emails by how long forgot-password takes
 * (Payload's route sent its email before answering: a slow mail provider made a known email answer in
 * seconds, an unknown one in milliseconds), setting a password without the service's rules, and the
 * same through GraphQL.
 */

const payload = usePayload()
const SMTP_DELAY_MS = 2_000

afterEach(() => smtp.setDelay(0))

const mailsTo = (email: string) => smtp.messages.filter((message) => JSON.stringify(message.to).includes(email))
const timed = async <T>(work: () => Promise<T>): Promise<[T, number]> => {
  const started = performance.now()
  const result = await work()
  return [result, performance.now() - started]
}

describe('POST /api/users/forgot-password (the admin\'s "Forgot password?")', () => {
  it('answers known and unknown emails alike, before any email is sent, with a slow mail server', async () => {
    smtp.setDelay(SMTP_DELAY_MS)
    const known = await createUser(payload(), 'customer')
    const unknown = `nobody-${Date.now()}@example.test`
    // Warm the route once so neither measured call pays for the first compile of anything.
    await api('POST', '/users/forgot-password', { body: { email: `warm-${Date.now()}@example.test` } })

    const [knownAnswer, knownMs] = await timed(() =>
      api('POST', '/users/forgot-password', { body: { email: known.email } }),
    )
    const [unknownAnswer, unknownMs] = await timed(() =>
      api('POST', '/users/forgot-password', { body: { email: unknown } }),
    )
    expect(knownAnswer.status).toBe(200)
    expect(unknownAnswer.status).toBe(200)
    expect(knownAnswer.body).toEqual(unknownAnswer.body)
    expect(knownAnswer.body).toEqual({ message: 'Success' })
    // The answer never waits for the mail server: the email is a queued job, not yet sent.
    expect(mailsTo(known.email)).toHaveLength(0)
    expect(knownMs).toBeLessThan(SMTP_DELAY_MS)
    expect(unknownMs).toBeLessThan(SMTP_DELAY_MS)

    // The queued email arrives (slowly) with the service's link, and the unknown email gets nothing.
    await payload().jobs.run({ limit: 100 })
    const message = await smtp.waitFor((m) => JSON.stringify(m.to).includes(known.email), 15_000)
    expect(message.subject).toMatch(/^Reset your password/)
    expect(message.text).toMatch(/\/auth\/callback\?type=recovery&token=/)
    expect(mailsTo(unknown)).toHaveLength(0)
  })

  it("counts against the same per-account limit as the service's own form", async () => {
    const email = `limited-${Date.now()}@example.test`
    const limit = RATE_LIMITS['password_reset:account'].points
    for (let attempt = 0; attempt < limit; attempt += 1)
      expect((await api('POST', '/users/forgot-password', { body: { email } })).status).toBe(200)
    const blocked = await api('POST', '/users/forgot-password', { body: { email } })
    expect(blocked.status).toBe(429)
    expect(blocked.body.errors[0].code).toBe('rate_limited')
    expect(blocked.headers.get('retry-after')).toMatch(/^\d+$/)
  })

  it('400 invalid_request for a missing or huge email, and nothing queued', async () => {
    const before = (await payload().count({ collection: 'payload-jobs' })).totalDocs
    expect((await api('POST', '/users/forgot-password', { body: {} })).body.errors[0].code).toBe('invalid_request')
    expect(
      (await api('POST', '/users/forgot-password', { body: { email: `${'a'.repeat(400)}@example.test` } })).body
        .errors[0].code,
    ).toBe('invalid_request')
    expect((await payload().count({ collection: 'payload-jobs' })).totalDocs).toBe(before)
  })
})

describe("POST /api/users/reset-password (the admin's reset form)", () => {
  it("sets the password with the emailed token through the service's reset: single use, other sessions ended, signed in", async () => {
    const user = await createUser(payload(), 'customer')
    await api('POST', '/users/forgot-password', { body: { email: user.email } })
    await payload().jobs.run({ limit: 100 })
    const message = await smtp.waitFor((m) => JSON.stringify(m.to).includes(user.email))
    const token = /type=recovery&token=([A-Za-z0-9]+)/.exec(message.text ?? '')![1]!

    const reset = await api('POST', '/users/reset-password', { body: { token, password: 'a-brand-new-password-1' } })
    expect(reset.status).toBe(200)
    expect(reset.body).toMatchObject({ token: expect.any(String), user: { id: user.user.id } })
    expect(reset.headers.get('set-cookie')).toMatch(/^payload-token=/)
    // the old session ended; the new one works; the old password does not
    expect((await api('GET', '/users/me', { as: user })).body.user).toBeNull()
    expect(
      (await api('GET', '/users/me', { headers: { authorization: `JWT ${reset.body.token}` } })).body.user?.id,
    ).toBe(user.user.id)
    expect((await api('POST', '/users/login', { body: { email: user.email, password: user.password } })).status).toBe(
      401,
    )
    // single use
    const again = await api('POST', '/users/reset-password', { body: { token, password: 'another-password-2' } })
    expect(again.status).toBe(400)
    expect(again.body.errors[0].code).toBe('invalid_link')
  })

  it('400 for a made-up token or a weak password', async () => {
    expect(
      (
        await api('POST', '/users/reset-password', {
          body: { token: 'a'.repeat(40), password: 'a-brand-new-password-1' },
        })
      ).body.errors[0].code,
    ).toBe('invalid_link')
    expect(
      (await api('POST', '/users/reset-password', { body: { token: 'a'.repeat(40), password: 'short' } })).body
        .errors[0].code,
    ).toBe('weak_password')
  })
})

describe('the other duplicates', () => {
  it('POST /api/users/verify/:token answers 404 not_found', async () => {
    const answer = await api('POST', '/users/verify/abc123')
    expect(answer.status).toBe(404)
    expect(answer.body.errors[0].code).toBe('not_found')
  })

  it('GraphQL forgotPasswordUser, resetPasswordUser and verifyEmailUser are not found, and queue nothing', async () => {
    const user = await createUser(payload(), 'customer')
    const before = (await payload().count({ collection: 'payload-jobs' })).totalDocs
    for (const mutation of [
      `mutation { forgotPasswordUser(email: "${user.email}") }`,
      'mutation { resetPasswordUser(token: "abc", password: "a-brand-new-password-1") { token } }',
      'mutation { verifyEmailUser(token: "abc") }',
    ]) {
      const result = await graphql(mutation, null)
      expect(result.errors?.[0]?.message).toMatch(/not found/i)
    }
    expect((await payload().count({ collection: 'payload-jobs' })).totalDocs).toBe(before)
  })

  it("unlock stays the admin's: anyone else gets the same 403 for known and unknown emails", async () => {
    const customer = await createUser(payload(), 'customer')
    const admin = await createUser(payload(), 'admin')
    for (const as of [null, customer]) {
      const known = await api('POST', '/users/unlock', { as, body: { email: customer.email } })
      const unknown = await api('POST', '/users/unlock', { as, body: { email: `nobody-${Date.now()}@example.test` } })
      expect(known.status).toBe(403)
      expect(unknown.status).toBe(known.status)
      expect(unknown.body).toEqual(known.body)
    }
    expect((await api('POST', '/users/unlock', { as: admin, body: { email: customer.email } })).status).toBe(200)
  })
})

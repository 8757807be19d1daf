import './../support/billing-env'

import { describe, expect, it, vi } from 'vitest'

import { handleAuthCallback } from '../../src/auth/callback'
import { completePasswordReset, RECOVERY_COOKIE } from '../../src/auth/recovery'
import { smtp } from '../support/billing-env'
import { api, createUser, type TestUser, usePayload } from '../support/payload'

const payload = usePayload()

let addressCounter = 0
const from = () => ({
  'x-kit-client-address': `198.20.${Math.floor(addressCounter / 250)}.${(addressCounter++ % 250) + 1}`,
})

const TABLES = ['payload_jobs', 'payload_jobs_log', 'users', 'auth_tokens', 'audit_log', 'analytics_events']

/** Every row of the tables a support user, an operator or a backup could read, as text. */
const dump = async () => {
  const parts: string[] = []
  for (const table of TABLES) {
    const { rows } = await payload().db.pool.query(`SELECT * FROM "${table}"`)
    parts.push(JSON.stringify(rows))
  }
  return parts.join('\n')
}

/** The newest email to `email` with that subject, after running the queue. */
const mail = async (email: string, subject: string) => {
  const matching = () =>
    smtp.messages.filter((m) => JSON.stringify(m.to).includes(email) && (m.subject ?? '').startsWith(subject))
  await payload().jobs.run({ limit: 100 })
  await smtp.waitFor(() => matching().length > 0)
  return matching().at(-1)!
}

/** The sign-in, confirmation, reset or email-change link in a message, and its token. */
const linkIn = (text: string | undefined) => {
  const url = /https?:\/\/\S+type=(magiclink|verify|recovery|email_change)&token=([A-Za-z0-9_%-]+)/.exec(text ?? '')!
  return { url: url[0], token: decodeURIComponent(url[2]!) }
}

/** Neither the link nor its token is anywhere at rest: before the email is sent and after. */
const expectNowhere = (link: { url: string; token: string }, ...dumps: string[]) => {
  for (const text of dumps) {
    expect(text).not.toContain(link.token)
    expect(text).not.toContain(encodeURIComponent(link.token))
  }
}

describe('no sign-in token or link is stored in clear text', () => {
  it('magic link: not in the queued job, the tokens table or anywhere else', async () => {
    const email = `at-rest-magic-${Date.now()}@example.test`
    await api('POST', '/auth/magic-link', { body: { email }, headers: from() })
    const queued = await dump()
    expect(queued).toContain('"task_slug":"sendEmail"')
    const link = linkIn((await mail(email, 'Your sign-in link')).text)
    expectNowhere(link, queued, await dump())
    expect(
      (await handleAuthCallback(payload(), { params: new URL(link.url).searchParams, cookies: new Map() })).cookie,
    ).toBeTruthy()
    expectNowhere(link, await dump())
  })

  it('sign-up confirmation', async () => {
    const email = `at-rest-verify-${Date.now()}@example.test`
    await api('POST', '/auth/sign-up', { body: { email, password: 'a-long-password-1' }, headers: from() })
    const queued = await dump()
    const link = linkIn((await mail(email, 'Confirm your email address')).text)
    expectNowhere(link, queued, await dump())
  })

  it('password reset through our form: the users row keeps only a SHA-256 of the token, which still works', async () => {
    const user = await createUser(payload(), 'customer')
    await api('POST', '/auth/forgot-password', { body: { email: user.email }, headers: from() })
    const queued = await dump()
    const link = linkIn((await mail(user.email, 'Reset your password')).text)
    expectNowhere(link, queued, await dump())
    const { rows } = await payload().db.pool.query('SELECT reset_password_token FROM users WHERE id = $1', [
      user.user.id,
    ])
    expect(rows[0].reset_password_token).toMatch(/^sha256:[0-9a-f]{64}$/)
    // the stored value itself is no link: Payload's own reset endpoint refuses it
    const stolen = await api('POST', '/users/reset-password', {
      body: { token: rows[0].reset_password_token, password: 'stolen-password-1' },
      headers: from(),
    })
    expect(stolen.status).toBeGreaterThanOrEqual(400)
    await expect(
      completePasswordReset(payload(), rows[0].reset_password_token, 'stolen-password-1'),
    ).rejects.toMatchObject({ code: 'invalid_link' })
    // the emailed token works
    expect(await completePasswordReset(payload(), link.token, 'a-brand-new-password')).toBe(user.user.id)
  })

  it("password reset from the admin's form (Payload's forgot-password): the same link on our callback, the same hashing", async () => {
    const user = await createUser(payload(), 'customer')
    expect((await api('POST', '/users/forgot-password', { body: { email: user.email }, headers: from() })).status).toBe(
      200,
    )
    const link = linkIn((await mail(user.email, 'Reset your password')).text)
    expectNowhere(link, await dump())
    const recovery = await handleAuthCallback(payload(), { params: new URL(link.url).searchParams, cookies: new Map() })
    expect(recovery.extraCookies?.[0]).toContain(`${RECOVERY_COOKIE}=`)
    expect(await completePasswordReset(payload(), link.token, 'a-brand-new-password')).toBe(user.user.id)
  })

  it('email change', async () => {
    const customer: TestUser = await createUser(payload(), 'customer')
    const newEmail = `at-rest-change-${Date.now()}@example.test`
    await api('POST', '/account/email', {
      as: customer,
      body: { email: newEmail, currentPassword: customer.password },
      headers: from(),
    })
    const queued = await dump()
    const link = linkIn((await mail(newEmail, 'Confirm your new email address')).text)
    expectNowhere(link, queued, await dump())
  })

  it("a failed send keeps the job (and its retries) but not the link, and Payload's log of the failed job holds none", async () => {
    const email = `at-rest-failed-${Date.now()}@example.test`
    const logged: string[] = []
    const logger = payload().logger
    const record = (...args: unknown[]) => {
      logged.push(JSON.stringify(args, (_key, value) => (value instanceof Error ? value.message : value)))
    }
    const spies = (['error', 'warn', 'info'] as const).map((level) =>
      vi.spyOn(logger, level).mockImplementation(record as never),
    )
    smtp.setDown(true)
    try {
      await api('POST', '/auth/magic-link', { body: { email }, headers: from() })
      await payload().jobs.run({ limit: 100 })
    } finally {
      smtp.setDown(false)
      for (const spy of spies) spy.mockRestore()
    }
    expect(logged.join('\n')).toContain(email)
    const failed = await dump()
    expect(failed).toContain(email)
    const link = linkIn((await mail(email, 'Your sign-in link')).text)
    expectNowhere(link, failed, await dump(), logged.join('\n'))
  })
})

import './../support/billing-env'

import { describe, expect, it } from 'vitest'

import { handleAuthCallback } from '../../src/auth/callback'
import { MAGIC_LINK_TTL_MS } from '../../src/auth/magic-link'
import { smtp } from '../support/billing-env'
import { rows } from '../support/billing'
import { api, createUser, usePayload } from '../support/payload'

const payload = usePayload()
const SERVER = 'http://localhost:3000'

const requestLink = (email: string, next?: string) =>
  api('POST', '/auth/magic-link', { body: { email, ...(next ? { next } : {}) } })

/** Run the queued emails and return the newest sign-in link sent to `email`. */
const linkFor = async (email: string, count = 1) => {
  await payload().jobs.run({ limit: 100 })
  const message = await smtp.waitFor(
    (candidate) =>
      candidate.subject?.startsWith('Your sign-in link') === true &&
      JSON.stringify(candidate.to).includes(email) &&
      smtp.messages.filter((m) => JSON.stringify(m.to).includes(email)).length >= count,
  )
  const links = smtp.messages
    .filter((candidate) => JSON.stringify(candidate.to).includes(email))
    .map((candidate) => /https?:\/\/\S+type=magiclink&token=[A-Za-z0-9_-]+/.exec(candidate.text ?? '')?.[0])
  expect(message.html).toContain('type=magiclink')
  return new URL(links[links.length - 1]!)
}

const callback = (url: URL) => handleAuthCallback(payload(), { params: url.searchParams, cookies: new Map() })

const sessionUser = async (cookie: string | undefined) => {
  const token = /payload-token=([^;]+)/.exec(cookie ?? '')?.[1]
  if (!token) return null
  const me = await api('GET', '/users/me', { headers: { authorization: `JWT ${token}` } })
  return me.body.user as { id: number; email: string; roles: string[] } | null
}

describe('magic links', () => {
  it('the first use creates the customer account, verified, and signs in', async () => {
    const email = `magic-new-${Date.now()}@example.test`
    expect(await requestLink(email)).toMatchObject({ status: 200, body: { ok: true } })
    const link = await linkFor(email)
    expect(link.origin).toBe(SERVER)
    const result = await callback(link)
    expect(result.location).toBe(`${SERVER}/dashboard`)
    const user = await sessionUser(result.cookie)
    expect(user).toMatchObject({ email, roles: ['customer'] })
    const stored = await payload().findByID({ collection: 'users', id: user!.id })
    expect(stored.emailVerified).toBe(true)
  })

  it('signs an existing account in, and goes to a same-site next', async () => {
    const existing = await createUser(payload(), 'customer')
    await requestLink(existing.email, '/dashboard?tab=downloads')
    const result = await callback(await linkFor(existing.email))
    expect(result.location).toBe(`${SERVER}/dashboard?tab=downloads`)
    expect((await sessionUser(result.cookie))?.id).toBe(existing.user.id)
  })

  it('answers the same for known and unknown emails', async () => {
    const known = await createUser(payload(), 'customer')
    const a = await requestLink(known.email)
    const b = await requestLink(`nobody-${Date.now()}@example.test`)
    expect(a.status).toBe(b.status)
    expect(a.body).toEqual(b.body)
  })

  it('works once: a replay gives an error page and no session', async () => {
    const email = `magic-replay-${Date.now()}@example.test`
    await requestLink(email)
    const link = await linkFor(email)
    expect((await callback(link)).cookie).toBeTruthy()
    const again = await callback(link)
    expect(again).toEqual({ location: `${SERVER}/sign-in?error=invalid_link` })
  })

  it('two clicks at once: one session, one refusal', async () => {
    const email = `magic-double-${Date.now()}@example.test`
    await requestLink(email)
    const link = await linkFor(email)
    const results = await Promise.all([callback(link), callback(link), callback(link)])
    expect(results.filter((result) => result.cookie)).toHaveLength(1)
    expect(await rows(payload(), 'users', { email: { equals: email } })).toHaveLength(1)
  })

  it('a newer link supersedes the older one', async () => {
    const email = `magic-newer-${Date.now()}@example.test`
    await requestLink(email)
    const older = await linkFor(email, 1)
    await requestLink(email)
    const newer = await linkFor(email, 2)
    expect(newer.toString()).not.toBe(older.toString())
    expect((await callback(older)).cookie).toBeUndefined()
    expect((await callback(newer)).cookie).toBeTruthy()
  })

  it('expires after 10 minutes', async () => {
    const email = `magic-expired-${Date.now()}@example.test`
    await requestLink(email)
    const link = await linkFor(email)
    await payload().db.pool.query(`UPDATE auth_tokens SET expires_at = now() - interval '1 second' WHERE email = $1`, [
      email,
    ])
    expect(await callback(link)).toEqual({ location: `${SERVER}/sign-in?error=invalid_link` })
    expect(MAGIC_LINK_TTL_MS).toBe(600_000)
  })

  it.each(['//evil.example', '/\\evil.example', '/%2F%2Fevil.example', 'https://evil.example', 'javascript:alert(1)'])(
    'never redirects off-site: next=%s lands on the dashboard',
    async (next) => {
      const email = `magic-next-${Math.random().toString(36).slice(2)}@example.test`
      await requestLink(email)
      const link = await linkFor(email)
      link.searchParams.set('next', next)
      const result = await callback(link)
      expect(result.location).toBe(`${SERVER}/dashboard`)
    },
  )

  it.each([
    ['a garbage token', 'type=magiclink&token=not-a-token'],
    ['no token', 'type=magiclink'],
    ['an unknown type', 'type=other&token=abc'],
    ['nothing', ''],
  ])('%s gives an error and no session', async (_name, query) => {
    const result = await handleAuthCallback(payload(), { params: new URLSearchParams(query), cookies: new Map() })
    expect(result.cookie).toBeUndefined()
    expect(result.location).toMatch(new RegExp(`^${SERVER}/sign-in\\?error=`))
  })

  it('400 for a malformed email, and tokens are never readable through the API', async () => {
    expect((await requestLink('not-an-email')).status).toBe(400)
    const admin = await createUser(payload(), 'admin')
    expect((await api('GET', '/auth_tokens', { as: admin })).status).toBe(403)
  })
})

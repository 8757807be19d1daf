import { describe, expect, it, vi } from 'vitest'

import { api, createUser, usePayload } from '../support/payload'

/**
 * POST /auth/sign-out, the header's Sign out: a plain form (the public pages have no React), so the
 * route checks the post came from the site's own pages before it ends the session.
 */
const hoisted = vi.hoisted(() => ({ cleared: 0 }))
vi.mock('../../src/app/_lib/session', () =>
  import('../support/server-actions').then(async (m) => ({
    ...(await m.sessionModule(() => null)),
    clearSessionCookie: () => {
      hoisted.cleared += 1
      return Promise.resolve()
    },
  })),
)

const { POST } = await import('../../src/app/(frontend)/auth/sign-out/route')
const payload = usePayload()

const me = async (token: string) =>
  (await api<{ user: { id: number } | null }>('GET', '/users/me', { headers: { authorization: `JWT ${token}` } })).body
    .user

const signOut = (token: string, headers: Record<string, string>) =>
  POST(
    new Request(`${payload().config.serverURL}/auth/sign-out`, {
      method: 'POST',
      headers: { cookie: `payload-token=${token}`, ...headers },
    }),
  )

describe('POST /auth/sign-out', () => {
  it('from another site (Origin or Sec-Fetch-Site) changes nothing: 403 forbidden', async () => {
    const customer = await createUser(payload(), 'customer')
    const before = hoisted.cleared
    const posts: Record<string, string>[] = [
      { origin: 'https://evil.example' },
      { 'sec-fetch-site': 'cross-site', origin: payload().config.serverURL },
      { 'sec-fetch-site': 'same-site' },
      { origin: 'null' },
    ]
    for (const headers of posts) {
      const response = await signOut(customer.token, headers)
      expect(response.status, JSON.stringify(headers)).toBe(403)
      expect((await response.json()).errors[0].code).toBe('forbidden')
    }
    expect(hoisted.cleared).toBe(before)
    expect(await me(customer.token)).toMatchObject({ id: customer.user.id })
  })

  it("from the site's own page: the session ends on the server, the cookie goes, 303 to the home page", async () => {
    const customer = await createUser(payload(), 'customer')
    const before = hoisted.cleared
    const response = await signOut(customer.token, {
      origin: new URL(payload().config.serverURL).origin,
      'sec-fetch-site': 'same-origin',
    })
    expect(response.status).toBe(303)
    expect(response.headers.get('location')).toBe('/')
    expect(hoisted.cleared).toBe(before + 1)
    expect(await me(customer.token)).toBeNull()
  })
})

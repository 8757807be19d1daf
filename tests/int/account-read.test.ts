import { SignJWT } from 'jose'
import { JWT_AUTH_VERSION } from 'payload'
import { describe, expect, it } from 'vitest'

import { readAccount } from '../../src/auth/account-read'
import { api, createUser, SERVER_URL, usePayload } from '../support/payload'
import { recordQueries } from '../support/queries'

const payload = usePayload()

/** Payload's own read of an account, as its JWT strategy makes it (the collection's auth depth, overrideAccess). */
const payloadRead = (id: number) =>
  payload().findByID({
    collection: 'users',
    id,
    depth: payload().collections.users.config.auth.depth,
    overrideAccess: true,
  })

/** The download path is a hot path: with a session and no license it answers 403, without a user 401. */
const download = (headers: Record<string, string>) => api('GET', '/download', { headers })

const PAYLOAD_READ = /from "users"/
const ACCOUNT_READ = /FROM "users" WHERE "users"\."id"/

describe('readAccount', () => {
  it('reads an account exactly as Payload does: every field, the roles in order, every session', async () => {
    const staff = await createUser(payload(), 'support')
    await payload().update({
      collection: 'users',
      id: staff.user.id,
      data: {
        roles: ['support', 'admin'],
        name: null,
        pendingEmail: 'new-address@example.test',
        processorCustomerId: `cus_${staff.user.id}`,
      },
      overrideAccess: true,
    })
    // A second session beside the one createUser opened.
    await payload().login({ collection: 'users', data: { email: staff.email, password: staff.password } })
    const expected = await payloadRead(staff.user.id)
    expect(expected.sessions).toHaveLength(2)
    expect(await readAccount(payload(), staff.user.id)).toEqual(expected)
    expect(await readAccount(payload(), String(staff.user.id))).toEqual(expected)
  })

  it('reads an account that never signed in (no sessions, email not verified) as Payload does', async () => {
    const fresh = await createUser(payload(), 'customer', { emailVerified: false, name: 'Ada' })
    const expected = await payloadRead(fresh.user.id)
    expect(expected.sessions ?? []).toEqual([])
    expect(await readAccount(payload(), fresh.user.id)).toEqual({ ...expected, sessions: expected.sessions ?? [] })
  })

  it.each([
    ['an id no account has', 987654321],
    ['an id that is not a number', '1 OR 1=1'],
    ['an empty id', ''],
  ])('null for %s', async (_what, id) => {
    expect(await readAccount(payload(), id)).toBeNull()
  })
})

describe("the hot paths check a session's token with Payload's JWT strategy and one account read", () => {
  it("a valid token is the account on GET /api/download: read in one statement, not by Payload's relational read", async () => {
    const customer = await createUser(payload(), 'customer')
    let status = 0
    const statements = await recordQueries(payload(), async () => {
      const response = await download({ authorization: `JWT ${customer.token}` })
      status = response.status
      expect(response.body.errors[0].code).toBe('license_required')
    })
    expect(status).toBe(403)
    expect(statements.filter((statement) => ACCOUNT_READ.test(statement))).toHaveLength(1)
    expect(statements.filter((statement) => PAYLOAD_READ.test(statement))).toEqual([])
  })

  it("off the hot paths Payload's own strategy reads the account, as before", async () => {
    const customer = await createUser(payload(), 'customer')
    const statements = await recordQueries(payload(), async () => {
      const me = await api('GET', '/users/me', { as: customer })
      expect(me.body.user).toMatchObject({ id: customer.user.id, email: customer.email, roles: ['customer'] })
    })
    expect(statements.filter((statement) => ACCOUNT_READ.test(statement))).toEqual([])
    expect(statements.filter((statement) => PAYLOAD_READ.test(statement)).length).toBeGreaterThan(0)
  })

  it('a signed-out session is refused: its token no longer opens the download', async () => {
    const customer = await createUser(payload(), 'customer')
    expect((await download({ authorization: `JWT ${customer.token}` })).status).toBe(403)
    expect((await api('POST', '/users/logout', { as: customer })).status).toBe(200)
    const after = await download({ authorization: `JWT ${customer.token}` })
    expect(after.status).toBe(401)
    expect(after.body.errors[0].code).toBe('unauthenticated')
  })

  it('a deleted account is refused', async () => {
    const customer = await createUser(payload(), 'customer')
    await payload().delete({ collection: 'users', id: customer.user.id, overrideAccess: true })
    expect((await download({ authorization: `JWT ${customer.token}` })).status).toBe(401)
  })

  it.each([
    ['another secret', 'not-the-secret-of-this-service-0123456789abcdef', JWT_AUTH_VERSION],
    ['another auth version', null, JWT_AUTH_VERSION + 1],
  ])('a token signed with %s is refused', async (_what, secret, authVersion) => {
    const customer = await createUser(payload(), 'customer')
    const [, body] = customer.token.split('.')
    const claims = JSON.parse(Buffer.from(body!, 'base64url').toString()) as Record<string, unknown>
    const forged = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT', authVersion })
      .sign(new TextEncoder().encode(secret ?? payload().secret))
    expect((await download({ authorization: `JWT ${forged}` })).status).toBe(401)
  })

  it("a token for a session of another account is refused (the session must be the account's own)", async () => {
    const one = await createUser(payload(), 'customer')
    const other = await createUser(payload(), 'customer')
    const claims = JSON.parse(Buffer.from(one.token.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>
    const otherSid = (JSON.parse(Buffer.from(other.token.split('.')[1]!, 'base64url').toString()) as { sid: string })
      .sid
    const forged = await new SignJWT({ ...claims, sid: otherSid })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT', authVersion: JWT_AUTH_VERSION })
      .sign(new TextEncoder().encode(payload().secret))
    expect((await download({ authorization: `JWT ${forged}` })).status).toBe(401)
  })

  it("the session cookie follows Payload's CSRF rule: refused from a foreign origin, accepted from the service's own", async () => {
    const customer = await createUser(payload(), 'customer')
    const cookie = `${payload().config.cookiePrefix}-token=${customer.token}`
    expect((await download({ cookie, origin: 'https://evil.example' })).status).toBe(401)
    expect((await download({ cookie, 'sec-fetch-site': 'cross-site' })).status).toBe(401)
    expect((await download({ cookie, origin: SERVER_URL })).status).toBe(403)
  })
})

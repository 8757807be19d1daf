import { AuthenticationError, createLocalReq, LockedAuth } from 'payload'
import { describe, expect, it } from 'vitest'

import { endCurrentSession } from '../../src/auth/issue-session'
import { api, createUser, usePayload } from '../support/payload'

const payload = usePayload()

let addressCounter = 0
const from = () => ({
  'x-kit-client-address': `198.21.${Math.floor(addressCounter / 250)}.${(addressCounter++ % 250) + 1}`,
})

const login = (email: string, password: string) =>
  api('POST', '/users/login', { body: { email, password }, headers: from() })
const me = async (token: string) =>
  (await api('GET', '/users/me', { headers: { authorization: `JWT ${token}` } })).body.user

describe('a locked account is no existence oracle', () => {
  it("after five failures even the right password gets exactly a wrong password's answer (REST)", async () => {
    const customer = await createUser(payload(), 'customer')
    for (let attempt = 0; attempt < 5; attempt += 1)
      expect((await login(customer.email, 'wrong-password-1')).status).toBe(401)
    const stored = await payload().findByID({ collection: 'users', id: customer.user.id, showHiddenFields: true })
    expect(new Date(String(stored.lockUntil)).getTime()).toBeGreaterThan(Date.now())

    const locked = await login(customer.email, customer.password)
    const wrong = await login(`nobody-${Date.now()}@example.test`, 'wrong-password-1')
    expect(locked.status).toBe(wrong.status)
    expect(locked.body).toEqual(wrong.body)
    expect(JSON.stringify(locked.body)).not.toMatch(/lock/i)
  })

  it("the sign-in page's Local API login refuses a locked account with the wrong-password error", async () => {
    const customer = await createUser(payload(), 'customer')
    for (let attempt = 0; attempt < 5; attempt += 1) await login(customer.email, 'wrong-password-1')
    const refusal = await payload()
      .login({ collection: 'users', data: { email: customer.email, password: customer.password } })
      .catch((error: Error) => error)
    const wrong = await payload()
      .login({ collection: 'users', data: { email: customer.email.replace('@', '-x@'), password: 'x' } })
      .catch((error: Error) => error)
    expect(refusal).toBeInstanceOf(AuthenticationError)
    expect((refusal as Error).message).toBe((wrong as Error).message)
  })

  it('parallel failures at the lock threshold all answer like failures on an unknown email', async () => {
    const customer = await createUser(payload(), 'customer')
    const attempts = await Promise.all(Array.from({ length: 8 }, () => login(customer.email, 'wrong-password-1')))
    const unknown = await login(`nobody-${Date.now()}@example.test`, 'wrong-password-1')
    for (const attempt of attempts) {
      expect(attempt.status).toBe(unknown.status)
      expect(attempt.body).toEqual(unknown.body)
    }
    // Payload's own lock error, wherever it could still surface, reads like a wrong password
    const req = await createLocalReq({}, payload())
    expect(new LockedAuth(req.t).message).toBe(new AuthenticationError(req.t).message)
  })
})

describe("the dashboard's sign-out", () => {
  it('ends the server session: the old token no longer authenticates; other devices stay signed in', async () => {
    const customer = await createUser(payload(), 'customer')
    const otherDevice = (await login(customer.email, customer.password)).body.token as string
    expect(await me(customer.token)).toMatchObject({ id: customer.user.id })

    // the page's headers: the session cookie of a same-site request
    await endCurrentSession(
      payload(),
      new Headers({ cookie: `payload-token=${customer.token}`, 'sec-fetch-site': 'same-origin' }),
    )
    expect(await me(customer.token)).toBeNull()
    expect(await me(otherDevice)).toMatchObject({ id: customer.user.id })
  })

  it('without a session it does nothing', async () => {
    await expect(endCurrentSession(payload(), new Headers())).resolves.toBeUndefined()
  })
})

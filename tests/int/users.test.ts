import { describe, expect, it } from 'vitest'

import { api, createUser, usePayload } from '../support/payload'

const payload = usePayload()

describe('first user', () => {
  it('the first user registered through the admin becomes an admin, and only once', async () => {
    const first = await api('POST', '/users/first-register', {
      body: { email: 'owner@example.test', password: 'a-long-password-1', roles: ['customer'] },
    })
    expect(first.status).toBe(200)
    expect(first.body.user.roles).toEqual(['admin'])

    const second = await api('POST', '/users/first-register', {
      body: { email: 'intruder@example.test', password: 'a-long-password-2' },
    })
    expect(second.status).toBe(403)
    const intruder = await payload().find({
      collection: 'users',
      where: { email: { equals: 'intruder@example.test' } },
    })
    expect(intruder.totalDocs).toBe(0)
  })
})

describe('public sign-up', () => {
  it('creates a customer even when the body asks for admin', async () => {
    const response = await api('POST', '/auth/sign-up', {
      body: { email: 'climber@example.test', password: 'a-long-password-3', roles: ['admin', 'support'] },
    })
    expect(response).toMatchObject({ status: 200, body: { ok: true } })
    const [stored] = (
      await payload().find({ collection: 'users', where: { email: { equals: 'climber@example.test' } } })
    ).docs
    expect(stored?.roles).toEqual(['customer'])
  })

  it('cannot set the processor customer id or the verified flag', async () => {
    const response = await api('POST', '/auth/sign-up', {
      body: {
        email: 'sneaky@example.test',
        password: 'a-long-password-4',
        processorCustomerId: 'cus_someone_else',
        emailVerified: true,
      },
    })
    expect(response.status).toBe(200)
    const [stored] = (
      await payload().find({ collection: 'users', where: { email: { equals: 'sneaky@example.test' } } })
    ).docs
    expect(stored?.processorCustomerId ?? null).toBeNull()
    expect(stored?.emailVerified).toBe(false)
  })

  it("Payload's own create endpoint is for admins only", async () => {
    const response = await api('POST', '/users', {
      body: { email: 'direct@example.test', password: 'a-long-password-5' },
    })
    expect(response.status).toBe(403)
  })
})

describe('customers', () => {
  it('cannot raise their own role or set billing fields', async () => {
    const customer = await createUser(payload(), 'customer')
    const response = await api('PATCH', `/users/${customer.user.id}`, {
      as: customer,
      body: { roles: ['admin'], processorCustomerId: 'cus_x', name: 'Renamed' },
    })
    expect(response.status).toBe(200)
    const stored = await payload().findByID({ collection: 'users', id: customer.user.id })
    expect(stored.roles).toEqual(['customer'])
    expect(stored.processorCustomerId ?? null).toBeNull()
    expect(stored.name).toBe('Renamed')
  })

  it('see only themselves', async () => {
    const alice = await createUser(payload(), 'customer')
    const bob = await createUser(payload(), 'customer')
    const list = await api('GET', '/users?limit=100', { as: alice })
    expect(list.status).toBe(200)
    expect(list.body.docs.map((doc: { id: number }) => doc.id)).toEqual([alice.user.id])

    const other = await api('GET', `/users/${bob.user.id}`, { as: alice })
    expect(other.status).toBe(404)
    const edit = await api('PATCH', `/users/${bob.user.id}`, { as: alice, body: { name: 'hijacked' } })
    expect(edit.status).toBe(403)
    const remove = await api('DELETE', `/users/${bob.user.id}`, { as: alice })
    expect(remove.status).toBe(403)
    const stillThere = await payload().findByID({ collection: 'users', id: bob.user.id })
    expect(stillThere.name).not.toBe('hijacked')
  })

  it('cannot open the admin UI; staff can', async () => {
    const customer = await createUser(payload(), 'customer')
    const support = await createUser(payload(), 'support')
    const customerAccess = await api('GET', '/access', { as: customer })
    const supportAccess = await api('GET', '/access', { as: support })
    expect(customerAccess.status).toBe(200)
    // Payload leaves out permissions that are false.
    expect(customerAccess.body.canAccessAdmin).toBeUndefined()
    expect(supportAccess.body.canAccessAdmin).toBe(true)
  })

  it('anonymous callers read no users', async () => {
    await createUser(payload(), 'customer')
    const list = await api('GET', '/users')
    expect(list.status).toBe(403)
  })
})

describe('staff', () => {
  it('support reads every user but cannot change roles', async () => {
    const support = await createUser(payload(), 'support')
    const customer = await createUser(payload(), 'customer')
    const read = await api('GET', `/users/${customer.user.id}`, { as: support })
    expect(read.status).toBe(200)
    expect(read.body.email).toBe(customer.email)

    const promote = await api('PATCH', `/users/${customer.user.id}`, { as: support, body: { roles: ['admin'] } })
    expect(promote.status).toBe(403)
    const stored = await payload().findByID({ collection: 'users', id: customer.user.id })
    expect(stored.roles).toEqual(['customer'])
  })

  it('admins change roles', async () => {
    const admin = await createUser(payload(), 'admin')
    const customer = await createUser(payload(), 'customer')
    const promote = await api('PATCH', `/users/${customer.user.id}`, { as: admin, body: { roles: ['support'] } })
    expect(promote.status).toBe(200)
    const stored = await payload().findByID({ collection: 'users', id: customer.user.id })
    expect(stored.roles).toEqual(['support'])
  })
})

describe('login lockout', () => {
  it('locks the account after five failed attempts, even for the right password', async () => {
    const customer = await createUser(payload(), 'customer')
    for (let attempt = 0; attempt < 5; attempt += 1) {
      const wrong = await api('POST', '/users/login', { body: { email: customer.email, password: 'wrong-password' } })
      expect(wrong.status).toBe(401)
    }
    const right = await api('POST', '/users/login', { body: { email: customer.email, password: customer.password } })
    expect(right.status).toBe(401)
    // exactly a wrong password's answer: no existence oracle
    expect(right.body).toEqual(
      (await api('POST', '/users/login', { body: { email: 'nobody@example.test', password: 'wrong-password' } })).body,
    )
    const stored = await payload().findByID({ collection: 'users', id: customer.user.id, showHiddenFields: true })
    expect(new Date(String(stored.lockUntil)).getTime()).toBeGreaterThan(Date.now())
  })

  it('signs in with the right password otherwise', async () => {
    const customer = await createUser(payload(), 'customer')
    const right = await api('POST', '/users/login', { body: { email: customer.email, password: customer.password } })
    expect(right.status).toBe(200)
    expect(right.body.user.email).toBe(customer.email)
  })
})

describe('cookie sessions and CSRF', () => {
  it('accepts the session cookie only from an origin in the SERVER_URL allow-list', async () => {
    const customer = await createUser(payload(), 'customer')
    const cookie = `payload-token=${customer.token}`
    const sameSite = await api('GET', '/users/me', { headers: { cookie, origin: 'http://localhost:3000' } })
    expect(sameSite.body.user?.email).toBe(customer.email)
    const crossSite = await api('GET', '/users/me', { headers: { cookie, origin: 'https://evil.example' } })
    expect(crossSite.body.user).toBeNull()
  })

  it('sets an HttpOnly, SameSite=Lax session cookie on login', async () => {
    const customer = await createUser(payload(), 'customer')
    const login = await api('POST', '/users/login', { body: { email: customer.email, password: customer.password } })
    const setCookie = login.headers.get('set-cookie') ?? ''
    expect(setCookie).toMatch(/payload-token=/)
    expect(setCookie).toMatch(/HttpOnly/i)
    expect(setCookie).toMatch(/SameSite=Lax/i)
  })
})

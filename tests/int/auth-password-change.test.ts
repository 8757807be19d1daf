import { describe, expect, it } from 'vitest'

import { api, createUser, usePayload } from '../support/payload'

/** A stolen session must not become a permanent takeover: changing a password proves the current one. */
describe('changing one’s own password', () => {
  const payload = usePayload()

  const login = (email: string, password: string) => api('POST', '/users/login', { body: { email, password } })

  it('is refused without the current password, and the old password keeps working', async () => {
    const customer = await createUser(payload(), 'customer')
    const response = await api('PATCH', `/users/${customer.user.id}`, {
      as: customer,
      body: { password: 'taken-over-password-1' },
    })
    expect(response.status).toBe(400)
    expect(response.body.errors[0].code).toBe('current_password_incorrect')
    expect((await login(customer.email, 'taken-over-password-1')).status).toBe(401)
    expect((await login(customer.email, customer.password)).status).toBe(200)
  })

  it('is refused with a wrong current password', async () => {
    const customer = await createUser(payload(), 'customer')
    const response = await api('PATCH', `/users/${customer.user.id}`, {
      as: customer,
      body: { password: 'taken-over-password-2', currentPassword: 'not-the-password' },
    })
    expect(response.status).toBe(400)
    expect(response.body.errors[0].code).toBe('current_password_incorrect')
    expect((await login(customer.email, customer.password)).status).toBe(200)
  })

  it('works with the current password, for customers and support alike', async () => {
    for (const role of ['customer', 'support'] as const) {
      const user = await createUser(payload(), role)
      const response = await api('PATCH', `/users/${user.user.id}`, {
        as: user,
        body: { password: 'a-new-long-password', currentPassword: user.password },
      })
      expect(response.status).toBe(200)
      expect(JSON.stringify(response.body)).not.toContain('currentPassword')
      expect((await login(user.email, 'a-new-long-password')).status).toBe(200)
      expect((await login(user.email, user.password)).status).toBe(401)
    }
  })

  it('other fields change without a password', async () => {
    const customer = await createUser(payload(), 'customer')
    const response = await api('PATCH', `/users/${customer.user.id}`, { as: customer, body: { name: 'New Name' } })
    expect(response.status).toBe(200)
    expect(response.body.doc.name).toBe('New Name')
  })

  it('admins still set another user’s password in the admin', async () => {
    const admin = await createUser(payload(), 'admin')
    const customer = await createUser(payload(), 'customer')
    const response = await api('PATCH', `/users/${customer.user.id}`, {
      as: admin,
      body: { password: 'set-by-the-admin-1' },
    })
    expect(response.status).toBe(200)
    expect((await login(customer.email, 'set-by-the-admin-1')).status).toBe(200)
  })

  it('guessing the current password with a session counts as sign-in attempts: 429 after the account limit', async () => {
    const customer = await createUser(payload(), 'customer')
    const guess = (currentPassword: string) =>
      api('PATCH', `/users/${customer.user.id}`, {
        as: customer,
        body: { password: 'taken-over-password-3', currentPassword },
      })
    const answers = []
    for (let attempt = 0; attempt < 11; attempt += 1) answers.push((await guess(`guess-${attempt}`)).status)
    expect(answers.slice(0, 10)).toEqual(Array(10).fill(400))
    expect(answers[10]).toBe(429)
    // the right password is refused too while the limit lasts: guessing gains nothing
    const right = await guess(customer.password)
    expect(right.status).toBe(429)
    expect(right.body.errors[0].code).toBe('rate_limited')
  })
})

import './../support/billing-env'

import { beforeAll, describe, expect, it } from 'vitest'

import { handleAuthCallback } from '../../src/auth/callback'
import { PRICES, smtp } from '../support/billing-env'
import { buy, rows, seedStandInPlans } from '../support/billing'
import { api, createUser, type TestUser, usePayload } from '../support/payload'

const payload = usePayload()
const SERVER = 'http://localhost:3000'

beforeAll(async () => {
  await seedStandInPlans(payload())
})

let addressCounter = 0
const from = () => ({
  'x-kit-client-address': `198.19.${Math.floor(addressCounter / 250)}.${(addressCounter++ % 250) + 1}`,
})

const me = async (token: string | undefined) =>
  token ? (await api('GET', '/users/me', { headers: { authorization: `JWT ${token}` } })).body.user : null
const tokenIn = (cookie: string | undefined) => /payload-token=([^;]+)/.exec(cookie ?? '')?.[1]
const changeEmail = (user: TestUser | null, email: unknown, currentPassword: unknown = user?.password) =>
  api('POST', '/account/email', { as: user, body: { email, currentPassword }, headers: from() })
const stored = (user: TestUser) => payload().findByID({ collection: 'users', id: user.user.id })

const messagesTo = (email: string, subject: string) =>
  smtp.messages.filter((m) => JSON.stringify(m.to).includes(email) && (m.subject ?? '').startsWith(subject))
const changeLink = async (email: string, count = 1) => {
  await payload().jobs.run({ limit: 100 })
  await smtp.waitFor(() => messagesTo(email, 'Confirm your new email address').length >= count)
  const text = messagesTo(email, 'Confirm your new email address').at(-1)!.text ?? ''
  return new URL(/https?:\/\/\S+type=email_change&token=[A-Za-z0-9_-]+/.exec(text)![0])
}
const callback = (url: URL) => handleAuthCallback(payload(), { params: url.searchParams, cookies: new Map() })

describe('a customer changes their email', () => {
  it('cannot set it directly: PATCH /api/users/:id with an email is refused with our error shape', async () => {
    const customer = await createUser(payload(), 'customer')
    const response = await api('PATCH', `/users/${customer.user.id}`, {
      as: customer,
      body: { email: `elsewhere-${Date.now()}@example.test` },
    })
    expect(response.status).toBe(400)
    expect(response.body).toEqual({
      errors: [{ code: 'email_change_requires_confirmation', message: expect.any(String) }],
    })
    expect((await stored(customer)).email).toBe(customer.email)
    // other fields, and the same email, still save
    expect(
      (
        await api('PATCH', `/users/${customer.user.id}`, {
          as: customer,
          body: { email: customer.email.toUpperCase(), name: 'Renamed' },
        })
      ).status,
    ).toBe(200)
  })

  it('admins still change emails in the admin', async () => {
    const admin = await createUser(payload(), 'admin')
    const customer = await createUser(payload(), 'customer')
    const email = `moved-by-staff-${Date.now()}@example.test`
    expect((await api('PATCH', `/users/${customer.user.id}`, { as: admin, body: { email } })).status).toBe(200)
    expect((await stored(customer)).email).toBe(email)
  })

  it('asks through POST /api/account/email: nothing changes or is claimed until the link sent to the new address is opened', async () => {
    const customer = await createUser(payload(), 'customer')
    const otherDevice = customer.token
    const newEmail = `new-address-${Date.now()}@example.test`
    await buy(PRICES.standard, { email: newEmail })
    const [license] = await rows(payload(), 'licenses', { email: { equals: newEmail } })
    expect(license?.user ?? null).toBeNull()

    expect(await changeEmail(customer, newEmail)).toMatchObject({ status: 200, body: { ok: true, pending: newEmail } })
    const before = await stored(customer)
    expect(before).toMatchObject({ email: customer.email, pendingEmail: newEmail, emailVerified: true })
    const link = await changeLink(newEmail)
    expect(link.origin).toBe(SERVER)
    // the old address gets a notice without any link that signs in
    const [notice] = messagesTo(customer.email, 'Your email address is being changed')
    expect(notice?.text).toContain(newEmail)
    expect(notice?.text).not.toMatch(/token=/)
    // nothing claimed, and the new address does not sign in yet
    expect(await rows(payload(), 'licenses', { user: { equals: customer.user.id } })).toHaveLength(0)
    expect(
      (await api('POST', '/users/login', { body: { email: newEmail, password: customer.password }, headers: from() }))
        .status,
    ).toBe(401)

    const result = await callback(link)
    expect(result.location).toBe(`${SERVER}/dashboard?email_changed=1`)
    expect(await me(tokenIn(result.cookie))).toMatchObject({ id: customer.user.id, email: newEmail })
    expect(await stored(customer)).toMatchObject({ email: newEmail, pendingEmail: null, emailVerified: true })
    expect(await me(otherDevice)).toBeNull()
    expect((await rows(payload(), 'licenses', { user: { equals: customer.user.id } })).map((row) => row.id)).toEqual([
      license!.id,
    ])
    // the password is the account's own and keeps working, now with the new address
    expect(
      (await api('POST', '/users/login', { body: { email: newEmail, password: customer.password }, headers: from() }))
        .status,
    ).toBe(200)
    // single use
    expect((await callback(link)).location).toBe(`${SERVER}/sign-in?error=invalid_link`)
  })

  it('the link is bound to its address: a newer request to another address voids it', async () => {
    const customer = await createUser(payload(), 'customer')
    const first = `first-choice-${Date.now()}@example.test`
    const second = `second-choice-${Date.now()}@example.test`
    await changeEmail(customer, first)
    const firstLink = await changeLink(first)
    await changeEmail(customer, second)
    const secondLink = await changeLink(second)
    expect((await callback(firstLink)).location).toBe(`${SERVER}/sign-in?error=invalid_link`)
    expect((await stored(customer)).email).toBe(customer.email)
    expect((await callback(secondLink)).cookie).toBeTruthy()
    expect((await stored(customer)).email).toBe(second)
  })

  it('an address another account holds gets the same answer and no link; the account is never moved onto it', async () => {
    const customer = await createUser(payload(), 'customer')
    const holder = await createUser(payload(), 'customer')
    const answer = await changeEmail(customer, holder.email)
    expect(answer).toMatchObject({ status: 200, body: { ok: true, pending: holder.email } })
    await payload().jobs.run({ limit: 100 })
    expect(messagesTo(holder.email, 'Confirm your new email address')).toHaveLength(0)
    expect((await stored(customer)).email).toBe(customer.email)
  })

  it('401 when signed out; 400 for a malformed or unchanged address', async () => {
    const customer = await createUser(payload(), 'customer')
    expect((await changeEmail(null, 'someone@example.test')).body.errors[0].code).toBe('unauthenticated')
    expect((await changeEmail(customer, 'not-an-email')).body.errors[0].code).toBe('invalid_request')
    expect((await changeEmail(customer, customer.email)).body.errors[0].code).toBe('email_unchanged')
  })

  it('customers never write the processor customer id, the verified flag or the pending address', async () => {
    const customer = await createUser(payload(), 'customer')
    const response = await api('PATCH', `/users/${customer.user.id}`, {
      as: customer,
      body: { processorCustomerId: 'cus_someone_else', emailVerified: false, pendingEmail: 'x@example.test' },
    })
    expect(response.status).toBe(200)
    const after = await stored(customer)
    expect([after.processorCustomerId ?? null, after.emailVerified, after.pendingEmail ?? null]).toEqual([
      null,
      true,
      null,
    ])
  })

  it('a session alone (perhaps a stolen one) cannot move the account: the current password is required', async () => {
    const customer = await createUser(payload(), 'customer')
    const newEmail = `thief-${Date.now()}@example.test`
    const attempts = [
      api('POST', '/account/email', { as: customer, body: { email: newEmail }, headers: from() }),
      changeEmail(customer, newEmail, ''),
      changeEmail(customer, newEmail, 'not-the-password'),
    ]
    for (const response of await Promise.all(attempts)) {
      expect(response.status).toBe(400)
      expect(response.body.errors[0].code).toBe('current_password_incorrect')
    }
    expect((await stored(customer)).pendingEmail ?? null).toBeNull()
    await payload().jobs.run({ limit: 100 })
    expect(messagesTo(newEmail, 'Confirm your new email address')).toHaveLength(0)
  })
})

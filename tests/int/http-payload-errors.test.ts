import { describe, expect, it } from 'vitest'

import { api, createUser, SERVER_URL, usePayload } from '../support/payload'

const payload = usePayload()

const shaped = (body: { errors?: { code?: unknown; message?: unknown }[] }) =>
  Array.isArray(body.errors) &&
  body.errors.length > 0 &&
  body.errors.every((error) => typeof error.code === 'string' && typeof error.message === 'string')

describe("Payload's own errors answer in the error shape with a code", () => {
  it('404 not_found for a missing document', async () => {
    const admin = await createUser(payload(), 'admin')
    const response = await api('GET', '/users/99999999', { as: admin })
    expect(response.status).toBe(404)
    expect(response.body).toEqual({ errors: [{ code: 'not_found', message: expect.any(String) }] })
  })

  it('403 forbidden when access refuses, anonymous or signed in', async () => {
    const customer = await createUser(payload(), 'customer')
    for (const as of [null, customer]) {
      const response = await api('POST', '/plans', { as, body: { slug: 'sneaky', name: 'Sneaky' } })
      expect(response.status).toBe(403)
      expect(response.body).toEqual({ errors: [{ code: 'forbidden', message: expect.any(String) }] })
    }
    const jobs = await api('GET', '/payload-jobs', { as: customer })
    expect(jobs.status).toBe(403)
    expect(jobs.body.errors[0].code).toBe('forbidden')
  })

  it('400 validation_error naming each invalid field, with the field list the admin UI reads', async () => {
    const admin = await createUser(payload(), 'admin')
    const response = await api('POST', '/plans', { as: admin, body: { slug: 'half-a-plan' } })
    expect(response.status).toBe(400)
    expect(shaped(response.body)).toBe(true)
    const [error] = response.body.errors
    expect(error.code).toBe('validation_error')
    const fields: { path: string; message: string }[] = error.data.errors
    expect(fields.length).toBeGreaterThan(0)
    for (const field of fields) expect(error.message).toContain(`${field.path}: ${field.message}`)
  })

  it('400 with a code for a query on a field that does not exist', async () => {
    const admin = await createUser(payload(), 'admin')
    const response = await api('GET', '/plans?where[noSuchField][equals]=1', { as: admin })
    expect(response.status).toBe(400)
    expect(response.body).toEqual({
      errors: [{ code: 'query_error', message: expect.stringContaining('noSuchField') }],
    })
  })

  it('a wrong password, an unknown email and a locked account answer exactly alike: 401 invalid_credentials', async () => {
    const user = await createUser(payload(), 'customer')
    const login = (email: string, password: string) => api('POST', '/users/login', { body: { email, password } })
    const wrong = await login(user.email, 'not-the-password')
    expect(wrong.status).toBe(401)
    expect(wrong.body).toEqual({ errors: [{ code: 'invalid_credentials', message: expect.any(String) }] })
    const unknown = await login(`nobody-${Date.now()}@example.test`, 'not-the-password')
    // Lock the account (maxLoginAttempts 5), then try the right password.
    for (let attempt = 0; attempt < 5; attempt += 1) await login(user.email, 'not-the-password')
    const locked = await login(user.email, user.password)
    for (const other of [unknown, locked]) {
      expect(other.status).toBe(wrong.status)
      expect(other.body).toEqual(wrong.body)
    }
  })
})

describe('unknown API paths', () => {
  it('answer 404 not_found in the error shape through the REST route, for every method', async () => {
    const { REST_GET, REST_POST } = await import('@payloadcms/next/routes')
    const { default: config } = await import('../../payload.config')
    const { withErrorShape } = await import('../../src/http/payload-errors')
    for (const [method, handler] of [
      ['GET', REST_GET],
      ['POST', REST_POST],
    ] as const) {
      const route = withErrorShape(handler(config))
      const response = await route(new Request(`${SERVER_URL}/api/no-such-path`, { method }), {
        params: Promise.resolve({ slug: ['no-such-path'] }),
      })
      expect(response.status).toBe(404)
      expect(await response.json()).toEqual({ errors: [{ code: 'not_found', message: 'There is no such API path.' }] })
    }
    // Payload's own 404 for a missing document keeps its message.
    const admin = await createUser(payload(), 'admin')
    const response = await withErrorShape(REST_GET(config))(
      new Request(`${SERVER_URL}/api/users/99999999`, { headers: { authorization: `JWT ${admin.token}` } }),
      { params: Promise.resolve({ slug: ['users', '99999999'] }) },
    )
    expect(response.status).toBe(404)
    expect((await response.json()).errors[0]).toMatchObject({ code: 'not_found' })
  })
})

describe('logging of our own errors', () => {
  it("a client's mistake is logged at info (message only); a failure of ours as an error", async () => {
    const { ServiceError } = await import('../../src/http/errors')
    const levels = payload().config.loggingLevels as Record<string, string | false | undefined>
    expect(levels[new ServiceError(400, 'email_change_requires_confirmation', 'x').name]).toBe('info')
    expect(levels[new ServiceError(429, 'rate_limited', 'x').name]).toBe('info')
    expect(levels[new ServiceError(502, 'processor_unavailable', 'x').name]).toBeUndefined()
    // the class is still what every handler checks
    expect(new ServiceError(400, 'invalid_request', 'y')).toBeInstanceOf(ServiceError)
  })
})

import { describe, expect, it } from 'vitest'

import { RATE_LIMITS } from '../../src/auth/rate-limit'
import { api, createUser, usePayload } from '../support/payload'

const payload = usePayload()

const login = (email: string, password: string, address: string) =>
  api('POST', '/users/login', { body: { email, password }, headers: { 'x-kit-client-address': address } })

describe('sign-in rate limits (shared in PostgreSQL)', () => {
  it('per address: 429 with Retry-After once the address has used its attempts', async () => {
    const limit = RATE_LIMITS['sign_in:ip'].points
    const address = '198.51.100.10'
    for (let attempt = 0; attempt < limit; attempt += 1) {
      const response = await login(`someone-${attempt}@example.test`, 'wrong-password', address)
      expect(response.status).toBe(401)
    }
    const blocked = await login('another@example.test', 'wrong-password', address)
    expect(blocked.status).toBe(429)
    expect(blocked.body).toEqual({
      errors: [{ code: 'rate_limited', message: expect.stringMatching(/Try again in \d+ seconds/) }],
    })
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0)
    // another address is not affected
    expect((await login('another@example.test', 'wrong-password', '198.51.100.11')).status).toBe(401)
  })

  it('per account, across addresses, the same for known and unknown emails', async () => {
    const limit = RATE_LIMITS['sign_in:account'].points
    const known = await createUser(payload(), 'customer')
    const unknown = `ghost-${Date.now()}@example.test`
    const answers: Record<string, { status: number; body: unknown }[]> = { known: [], unknown: [] }
    for (let attempt = 0; attempt <= limit; attempt += 1) {
      for (const [label, email] of [
        ['known', known.email],
        ['unknown', unknown],
      ] as const) {
        const response = await login(email, 'wrong-password', `203.0.113.${attempt + 1}`)
        answers[label]!.push({ status: response.status, body: response.body })
      }
    }
    // the known account locks itself after 5 failures (401), then the limit applies (429): same codes for both
    expect(answers.known!.at(-1)!.status).toBe(429)
    expect(answers.unknown!.at(-1)!.status).toBe(429)
    // the same body, up to the seconds left in each window
    const shape = (body: unknown) => JSON.stringify(body).replace(/\d+ seconds/, 'N seconds')
    expect(shape(answers.known!.at(-1)!.body)).toBe(shape(answers.unknown!.at(-1)!.body))
  })

  it('limits magic-link requests per email', async () => {
    const limit = RATE_LIMITS['magic_link:account'].points
    const email = `links-${Date.now()}@example.test`
    for (let attempt = 0; attempt < limit; attempt += 1) {
      expect(
        (
          await api('POST', '/auth/magic-link', {
            body: { email },
            headers: { 'x-kit-client-address': `192.0.2.${attempt + 1}` },
          })
        ).status,
      ).toBe(200)
    }
    const blocked = await api('POST', '/auth/magic-link', {
      body: { email },
      headers: { 'x-kit-client-address': '192.0.2.99' },
    })
    expect(blocked.status).toBe(429)
    expect(blocked.body.errors[0].code).toBe('rate_limited')
    expect(blocked.headers.get('retry-after')).toBeTruthy()
  })

  it('limits public sign-ups per address', async () => {
    const limit = RATE_LIMITS['sign_up:ip'].points
    const address = '192.0.2.200'
    for (let attempt = 0; attempt < limit; attempt += 1) {
      const response = await api('POST', '/auth/sign-up', {
        body: { email: `signup-${attempt}-${Date.now()}@example.test`, password: 'a-long-password-1' },
        headers: { 'x-kit-client-address': address },
      })
      expect(response.status).toBe(200)
    }
    const blocked = await api('POST', '/auth/sign-up', {
      body: { email: `signup-x-${Date.now()}@example.test`, password: 'a-long-password-1' },
      headers: { 'x-kit-client-address': address },
    })
    expect(blocked.status).toBe(429)
  })
})

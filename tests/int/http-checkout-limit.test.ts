import './../support/billing-env'

import { beforeAll, describe, expect, it } from 'vitest'

import { RATE_LIMITS } from '../../src/auth/rate-limit'
import { PRICES, standIn } from '../support/billing-env'
import { seedStandInPlans } from '../support/billing'
import { oneSocket, send, startPayloadHost } from '../support/host'
import { api, usePayload } from '../support/payload'

const payload = usePayload()

beforeAll(async () => {
  await seedStandInPlans(payload())
})

const sessionRequests = () =>
  standIn.state.requests.filter((request) => request.path === '/v1/checkout/sessions').length

describe('anonymous checkout is limited per client address', () => {
  it('past the limit: 429 rate_limited with Retry-After, and the processor is not asked', async () => {
    const limit = RATE_LIMITS['checkout:ip'].points
    const address = '203.0.113.40'
    for (let attempt = 0; attempt < limit; attempt += 1) {
      expect((await api('POST', '/checkout_sessions', { address, body: { priceId: PRICES.standard } })).status).toBe(
        200,
      )
    }
    const before = sessionRequests()
    const blocked = await api('POST', '/checkout_sessions', { address, body: { priceId: PRICES.standard } })
    expect(blocked.status).toBe(429)
    expect(blocked.body).toEqual({
      errors: [{ code: 'rate_limited', message: expect.stringMatching(/Try again in \d+ seconds/) }],
    })
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(sessionRequests()).toBe(before)
    // Another client is not affected.
    expect(
      (await api('POST', '/checkout_sessions', { address: '203.0.113.41', body: { priceId: PRICES.standard } })).status,
    ).toBe(200)
  })

  it('through the host, rotating X-Forwarded-For on one socket does not lift it', async () => {
    const { base } = await startPayloadHost()
    const agent = oneSocket()
    const limit = RATE_LIMITS['checkout:ip'].points
    const statuses: number[] = []
    for (let attempt = 0; attempt <= limit; attempt += 1) {
      const response = await send(base, '/api/checkout_sessions', {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'x-forwarded-for': `198.51.100.${attempt + 1}` },
        body: JSON.stringify({ priceId: PRICES.standard }),
      })
      statuses.push(response.status)
    }
    agent.destroy()
    expect(statuses.slice(0, limit).every((status) => status === 200)).toBe(true)
    expect(statuses.at(-1)).toBe(429)
  })
})

import './../support/billing-env'

import type { PayloadRequest } from 'payload'
import { beforeAll, describe, expect, it, vi } from 'vitest'

import { pricingViewSource, recordPricingView } from '../../src/analytics/pricing-views'
import type * as TrackModule from '../../src/analytics/track'
import { RATE_LIMITS } from '../../src/auth/rate-limit'
import { PRICES, standIn } from '../support/billing-env'
import { rows, seedStandInPlans } from '../support/billing'
import { send, startPayloadHost } from '../support/host'
import { api, createUser, SERVER_URL, usePayload } from '../support/payload'

/**
 * The checkout funnel's first two steps (docs/INSIGHTS.md), recorded as analytics events without
 * personal data: `checkout_started` when the service opens a hosted checkout, once per processor
 * session; `pricing_viewed` from the storefront's beacon, once per client address, page and day.
 * Few checkouts here: the checkout limit is 20 per 10 minutes per address.
 */
const failing = vi.hoisted(() => ({ track: false }))
vi.mock('../../src/analytics/track', async (importOriginal) => {
  const original = await importOriginal<typeof TrackModule>()
  return {
    ...original,
    track: async (...args: Parameters<typeof original.track>) => {
      if (failing.track) throw new Error('analytics is down')
      return original.track(...args)
    },
  }
})

const payload = usePayload()

beforeAll(async () => {
  await seedStandInPlans(payload())
})

const named = (name: string, sourceEventId?: string) =>
  rows(payload(), 'analytics_events', {
    and: [{ name: { equals: name } }, ...(sourceEventId ? [{ sourceEventId: { equals: sourceEventId } }] : [])],
  })

describe('checkout_started', () => {
  it('is recorded once per processor session, with the plan and price only', async () => {
    const checkout = () =>
      api<{ id: string }>('POST', '/checkout_sessions', {
        address: '203.0.113.60',
        body: { priceId: PRICES.standard },
        headers: { 'idempotency-key': 'funnel-retry-1' },
      })
    const first = await checkout()
    const retry = await checkout()
    expect(first.status).toBe(200)
    expect(retry.body.id).toBe(first.body.id)
    const events = await named('checkout_started', first.body.id)
    expect(events).toHaveLength(1)
    expect(events[0]).toMatchObject({
      user: null,
      email: null,
      properties: { plan: 'standard', priceId: PRICES.standard, kind: 'purchase' },
    })
  })

  it('names no one for a signed-in buyer either', async () => {
    const buyer = await createUser(payload(), 'customer')
    const checkout = await api<{ id: string }>('POST', '/checkout_sessions', {
      as: buyer,
      body: { priceId: PRICES.proMonthly },
    })
    expect(checkout.status).toBe(200)
    const [event] = await named('checkout_started', checkout.body.id)
    expect(event).toMatchObject({ user: null, email: null })
    expect(event!.properties).toEqual({
      plan: standIn.state.sessions.get(checkout.body.id)!.metadata!.plan_id,
      priceId: PRICES.proMonthly,
      kind: 'purchase',
    })
    expect(JSON.stringify(event)).not.toContain(buyer.email)
    expect(await rows(payload(), 'analytics_events', { user: { equals: buyer.user.id } })).toEqual([])
  })

  it('a processor failure records nothing', async () => {
    const before = (await named('checkout_started')).length
    standIn.failNext({ method: 'POST', path: '/v1/checkout/sessions', count: 2, status: 500 })
    const response = await api('POST', '/checkout_sessions', {
      body: { priceId: PRICES.standard },
      headers: { 'idempotency-key': 'funnel-fail-1' },
    })
    standIn.clearFailures()
    expect(response.status).toBe(502)
    expect(await named('checkout_started')).toHaveLength(before)
  })

  it('a failure to record it never fails the checkout', async () => {
    failing.track = true
    try {
      const response = await api<{ id: string; url: string }>('POST', '/checkout_sessions', {
        body: { priceId: PRICES.ultimate },
      })
      expect(response.status).toBe(200)
      expect(response.body.url).toBeTruthy()
      expect(await named('checkout_started', response.body.id)).toEqual([])
    } finally {
      failing.track = false
    }
  })
})

/** `origin: null` or `site: null` leave that header out. */
type BeaconCall = {
  address?: string
  type?: string
  origin?: string | null
  site?: string | null
  as?: { token: string }
}

/** What navigator.sendBeacon sends for a string body from the site's page: text/plain, its Origin and Sec-Fetch-Site. */
const beacon = (body: unknown, call: BeaconCall = {}) => {
  const origin = call.origin === undefined ? SERVER_URL : call.origin
  const site = call.site === undefined ? 'same-origin' : call.site
  return api('POST', '/insights/pricing-views', {
    address: call.address ?? '198.51.100.10',
    as: call.as,
    body: typeof body === 'string' ? body : JSON.stringify(body),
    headers: {
      'content-type': call.type ?? 'text/plain;charset=UTF-8',
      ...(origin ? { origin } : {}),
      ...(site ? { 'sec-fetch-site': site } : {}),
    },
  })
}

const viewsFrom = async (address: string, page: 'home' | 'pricing', day = new Date().toISOString().slice(0, 10)) =>
  named('pricing_viewed', pricingViewSource(payload().secret, { day, address, page }))

describe('POST /api/insights/pricing-views', () => {
  it('204 with no body; repeated views from one address the same day are one row, with the page only', async () => {
    const address = '198.51.100.21'
    for (let view = 0; view < 3; view += 1) {
      const response = await beacon({ page: 'pricing' }, { address })
      expect(response.status).toBe(204)
      expect(response.body).toBeNull()
    }
    const events = await viewsFrom(address, 'pricing')
    expect(events).toHaveLength(1)
    expect(events[0]).toMatchObject({
      name: 'pricing_viewed',
      user: null,
      email: null,
      properties: { page: 'pricing' },
    })
    expect(events[0]!.sourceEventId).toMatch(/^view:\d{4}-\d{2}-\d{2}:[0-9a-f]{32}$/)
    expect(JSON.stringify(events[0])).not.toContain(address)
  })

  it('two pages, two addresses, two days: a row each; one IPv6 /64 is one address', async () => {
    await beacon({ page: 'home' }, { address: '198.51.100.22' })
    await beacon({ page: 'pricing' }, { address: '198.51.100.22' })
    await beacon({ page: 'home' }, { address: '198.51.100.23' })
    expect(await viewsFrom('198.51.100.22', 'home')).toHaveLength(1)
    expect(await viewsFrom('198.51.100.22', 'pricing')).toHaveLength(1)
    expect(await viewsFrom('198.51.100.23', 'home')).toHaveLength(1)

    await beacon({ page: 'home' }, { address: '2001:db8:5:6::1' })
    await beacon({ page: 'home' }, { address: '2001:db8:5:6:ffff::2' })
    expect(await viewsFrom('2001:db8:5:6::1', 'home')).toHaveLength(1)
    expect(pricingViewSource(payload().secret, { day: '2025-01-01', address: '2001:db8:5:6::1', page: 'home' })).toBe(
      pricingViewSource(payload().secret, { day: '2025-01-01', address: '2001:db8:5:6:ffff::2', page: 'home' }),
    )

    const req = { payload: payload() } as PayloadRequest
    await recordPricingView(req, { page: 'home', address: '198.51.100.24', now: new Date('2025-03-01T23:59:00Z') })
    await recordPricingView(req, { page: 'home', address: '198.51.100.24', now: new Date('2025-03-02T00:01:00Z') })
    expect(await viewsFrom('198.51.100.24', 'home', '2025-03-01')).toHaveLength(1)
    expect(await viewsFrom('198.51.100.24', 'home', '2025-03-02')).toHaveLength(1)
  })

  it('reads no session: a signed-in visitor is counted as anyone', async () => {
    const visitor = await createUser(payload(), 'customer')
    expect((await beacon({ page: 'home' }, { address: '198.51.100.25', as: visitor })).status).toBe(204)
    const [event] = await viewsFrom('198.51.100.25', 'home')
    expect(event).toMatchObject({ user: null, email: null, properties: { page: 'home' } })
    expect(JSON.stringify(event)).not.toContain(visitor.email)
  })

  it('JSON as text/plain or application/json', async () => {
    expect((await beacon({ page: 'home' }, { address: '198.51.100.26', type: 'text/plain' })).status).toBe(204)
    expect((await beacon({ page: 'pricing' }, { address: '198.51.100.26', type: 'application/json' })).status).toBe(204)
    expect((await beacon({ page: 'home' }, { address: '198.51.100.27' })).status).toBe(204)
    expect(await viewsFrom('198.51.100.26', 'home')).toHaveLength(1)
    expect(await viewsFrom('198.51.100.26', 'pricing')).toHaveLength(1)
    expect(await viewsFrom('198.51.100.27', 'home')).toHaveLength(1)
  })

  it.each([
    ['an unknown page', { page: 'checkout' }],
    ['no page', {}],
    ['another field', { page: 'home', email: 'someone@example.test' }],
    ['not JSON', '{page: home'],
    ['an array', [{ page: 'home' }]],
    ['a body over 1 KiB', { page: 'home', padding: 'x'.repeat(1100) }],
  ])('400 invalid_request for %s, and nothing recorded', async (_name, body) => {
    const before = (await named('pricing_viewed')).length
    const response = await beacon(body, { address: '198.51.100.28' })
    expect(response.status).toBe(400)
    expect(response.body).toEqual({
      errors: [expect.objectContaining({ code: 'invalid_request', message: expect.any(String) })],
    })
    expect(await named('pricing_viewed')).toHaveLength(before)
  })

  it("400 for a form body; 403 forbidden from another site's page", async () => {
    const form = await beacon('page=home', { address: '198.51.100.29', type: 'application/x-www-form-urlencoded' })
    expect(form.status).toBe(400)
    expect(form.body.errors[0].code).toBe('invalid_request')
    const foreign = await beacon(
      { page: 'home' },
      { address: '198.51.100.29', origin: 'https://elsewhere.example', site: 'cross-site' },
    )
    expect(foreign.status).toBe(403)
    expect(foreign.body.errors[0].code).toBe('forbidden')
    expect(await viewsFrom('198.51.100.29', 'home')).toEqual([])
  })

  it.each([
    ['neither Origin nor Sec-Fetch-Site (not a browser)', { origin: null, site: null }],
    ['Sec-Fetch-Site cross-site, no Origin', { origin: null, site: 'cross-site' }],
    ['Sec-Fetch-Site same-site (a sibling subdomain), no Origin', { origin: null, site: 'same-site' }],
    ['Sec-Fetch-Site none (not from a page)', { origin: null, site: 'none' }],
    ["the site's Origin but Sec-Fetch-Site cross-site", { site: 'cross-site' }],
    ['another Origin, no Sec-Fetch-Site', { origin: 'https://elsewhere.example', site: null }],
  ])('403 forbidden with %s, and nothing recorded', async (_name, headers) => {
    const response = await beacon({ page: 'home' }, { address: '198.51.100.32', ...headers })
    expect(response.status).toBe(403)
    expect(response.body.errors[0].code).toBe('forbidden')
    expect(await viewsFrom('198.51.100.32', 'home')).toEqual([])
  })

  it('counted with only one of the two headers, as older browsers send: the Origin, or Sec-Fetch-Site same-origin', async () => {
    expect((await beacon({ page: 'home' }, { address: '198.51.100.33', site: null })).status).toBe(204)
    expect((await beacon({ page: 'pricing' }, { address: '198.51.100.33', origin: null })).status).toBe(204)
    expect(await viewsFrom('198.51.100.33', 'home')).toHaveLength(1)
    expect(await viewsFrom('198.51.100.33', 'pricing')).toHaveLength(1)
  })

  it(`rate-limited per address: ${RATE_LIMITS['pricing_views:ip'].points} in 10 minutes, then 429 rate_limited`, async () => {
    const limit = RATE_LIMITS['pricing_views:ip'].points
    for (let view = 0; view < limit; view += 1)
      expect((await beacon({ page: 'home' }, { address: '198.51.100.30' })).status).toBe(204)
    const blocked = await beacon({ page: 'home' }, { address: '198.51.100.30' })
    expect(blocked.status).toBe(429)
    expect(blocked.body.errors[0].code).toBe('rate_limited')
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0)
    expect((await beacon({ page: 'home' }, { address: '198.51.100.31' })).status).toBe(204)
  })

  it("through the host, as a browser sends it: text/plain from the page's origin", async () => {
    const { base } = await startPayloadHost()
    const response = await send(base, '/api/insights/pricing-views', {
      method: 'POST',
      headers: { 'content-type': 'text/plain;charset=UTF-8', origin: SERVER_URL, 'sec-fetch-site': 'same-origin' },
      body: JSON.stringify({ page: 'pricing' }),
    })
    expect(response.status).toBe(204)
    expect(response.body).toBe('')
    expect(await viewsFrom('127.0.0.1', 'pricing')).toHaveLength(1)
  })
})

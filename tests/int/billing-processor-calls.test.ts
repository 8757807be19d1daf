import './../support/billing-env'

import fs from 'node:fs'
import path from 'node:path'

import { renderToStaticMarkup } from 'react-dom/server'
import { beforeAll, describe, expect, it, vi } from 'vitest'

import { RATE_LIMITS } from '../../src/auth/rate-limit'
import { priceReader } from '../../src/billing/kept-reads'
import { billingRuntimeOf } from '../../src/billing/runtime'
import { PRICES, standIn } from '../support/billing-env'
import { buy, rows, seedStandInPlans } from '../support/billing'
import { api, createUser, type TestUser, usePayload } from '../support/payload'

/**
 * The seller's processor quota is shared by every customer: no request may spend it unbounded. Every
 * processor call the service's code makes is listed below with what bounds it (the inventory test fails
 * on a call site nobody counted), and each request that reaches one is made many times here while the
 * stand-in counts what arrived: a page view reads a price once per process, not once per view; a call
 * that cannot be kept (a checkout, a portal session) stops at its rate limit before the processor is asked.
 */
const hoisted = vi.hoisted((): { user: { current: unknown }; address: string } => ({
  user: { current: null },
  address: '203.0.113.1',
}))

vi.mock('../../src/app/_lib/session', () =>
  import('../support/server-actions').then((m) => m.sessionModule(() => hoisted.user.current)),
)
vi.mock('next/navigation', () => import('../support/server-actions').then((m) => m.navigationModule))
vi.mock('next/cache', () => ({ revalidatePath: () => undefined, unstable_cache: <T>(fn: T) => fn }))
vi.mock('next/headers', () => ({
  headers: () =>
    Promise.resolve(new Headers({ 'user-agent': 'processor-calls-test', 'x-kit-client-address': hoisted.address })),
}))

const { default: DashboardPage } = await import('../../src/app/(frontend)/dashboard/page')
const { loadVisitorPricing } = await import('../../src/app/(frontend)/_components/pricing-data')
const { default: SuccessPage } = await import('../../src/app/(frontend)/success/page')

const payload = usePayload()

const ROOT = path.resolve(import.meta.dirname, '../..')

/**
 * Every processor call in the service's code (the stand-ins aside), by file, and what bounds it when a
 * request can reach it. A new call site fails the inventory test until it is listed here and counted below.
 */
const CALL_SITES: Record<string, Record<string, string>> = {
  'src/billing/kept-reads.ts': {
    'prices.retrieve': 'kept per process: read again after 60 s (`active`), failures after 5 s',
    'checkout.sessions.retrieve': 'kept per process: 10 min once paid or expired, 2 s while open',
  },
  'src/billing/checkout.ts': {
    'checkout.sessions.create': 'the checkout rate limit (per address and account), before the call',
  },
  'src/billing/license-upgrades.ts': { 'coupons.create': 'the checkout rate limit, before the call' },
  'src/billing/portal.ts': { 'billingPortal.sessions.create': 'the billing_portal rate limit, before the call' },
  'src/billing/license-change-jobs.ts': {
    'refunds.create': 'a job, once per refused change (not reachable from a request)',
  },
  'src/billing/webhook/steps.ts': {
    'customers.retrieve': 'the signed webhook: once per new event, a duplicate loads nothing',
    'subscriptions.retrieve': 'the signed webhook',
    'paymentIntents.retrieve': 'the signed webhook',
    'charges.retrieve': 'the signed webhook',
    'invoicePayments.list': 'the signed webhook',
    'invoices.retrieve': 'the signed webhook',
  },
  'src/billing/webhook/events/charge-refunded.ts': { 'charges.retrieve': 'the signed webhook' },
  'src/billing/webhook/events/charge-dispute.ts': {
    'disputes.retrieve': 'the signed webhook',
    'charges.retrieve': 'the signed webhook',
  },
  'src/billing/webhook/events/checkout-session.ts': { 'checkout.sessions.retrieve': 'the signed webhook' },
  'src/billing/webhook/events/invoice-payment.ts': { 'invoicePayments.list': 'the signed webhook' },
  'src/privacy/erasure.ts': {
    'customers.del':
      'the erasure job, once per customer of an account whose deletion is due (not reachable from a request)',
  },
}

const RESOURCES =
  'prices|products|checkout\\.sessions|customers|subscriptions|subscriptionItems|paymentIntents|charges|invoices|invoicePayments|coupons|promotionCodes|billingPortal\\.sessions|refunds|disputes|events|taxRates|paymentMethods|setupIntents'
const CALL = new RegExp(`\\b(?:processor|stripe)\\)?\\.(${RESOURCES})\\.([a-zA-Z]+)\\(`, 'g')

const sourceFiles = (dir: string): string[] =>
  fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = path.join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(relative)
    return /\.tsx?$/.test(entry.name) ? [relative] : []
  })

/** Requests the stand-in received since `since`, by `METHOD /path` without ids. */
const callsSince = (since: number) =>
  standIn.state.requests
    .slice(since)
    .map(
      (request) =>
        `${request.method} ${request.path.replace(/\/(?:price|cs|cus|bps|co|pi|ch)_[A-Za-z0-9_]+/g, '/:id')}`,
    )

const counting = async (work: () => Promise<unknown>) => {
  const since = standIn.state.requests.length
  await work()
  return callsSince(since)
}

const as = (who: TestUser | null) => {
  hoisted.user.current = who ? { ...who.user, collection: 'users' } : null
}

let holder: TestUser
let licenseId: number

beforeAll(async () => {
  await seedStandInPlans(payload())
  holder = await createUser(payload(), 'customer')
  await buy(PRICES.standard, { as: holder })
  await standIn.settled()
  const [license] = await rows(payload(), 'licenses', { user: { equals: holder.user.id } })
  licenseId = license!.id
}, 120_000)

describe('the inventory of processor calls', () => {
  it('lists every call site in the code, each with what bounds it', () => {
    const found: Record<string, Set<string>> = {}
    for (const file of ['src', 'endpoints', 'plugins', 'collections'].flatMap(sourceFiles)) {
      const text = fs.readFileSync(path.join(ROOT, file), 'utf8')
      for (const match of text.matchAll(CALL)) (found[file] ??= new Set()).add(`${match[1]}.${match[2]}`)
    }
    const listed = Object.fromEntries(
      Object.entries(CALL_SITES).map(([file, calls]) => [file, Object.keys(calls).sort()]),
    )
    expect(Object.fromEntries(Object.entries(found).map(([file, calls]) => [file, [...calls].sort()]))).toEqual(listed)
  })
})

describe('pages read prices once per process, however often they are viewed', () => {
  it('40 dashboard views and 40 pricing-table visits read the upgrade target price at most once', async () => {
    as(holder)
    const calls = await counting(async () => {
      for (let view = 0; view < 40; view += 1) {
        const html = renderToStaticMarkup(await DashboardPage({ searchParams: Promise.resolve({}) }))
        expect(html).toContain('Upgrade to Ultimate')
        const visitor = await loadVisitorPricing()
        expect(visitor.upgrades.map((offer) => offer.toSlug)).toEqual(['ultimate'])
      }
    })
    // The checkout's own read of the Standard price warmed nothing for Ultimate: at most the one read.
    expect(calls.filter((call) => call !== 'GET /v1/prices/:id')).toEqual([])
    expect(calls.length).toBeLessThanOrEqual(1)
  })

  it('a price retired at the processor stops selling once its kept copy is due; a wrong price id costs one read, not one per view', async () => {
    const processor = billingRuntimeOf(payload()).require().processor
    const retired = await processor.prices.create({
      unit_amount: 500,
      currency: 'usd',
      product_data: { name: 'Retired soon' },
    })
    const reader = priceReader(processor, 200)
    expect((await reader.retrieve(retired.id)).active).toBe(true)
    await processor.prices.update(retired.id, { active: false })
    // Kept: the same answer, no request, until the copy is due (a minute in the service).
    expect(await counting(async () => expect((await reader.retrieve(retired.id)).active).toBe(true))).toEqual([])
    await new Promise((resolve) => setTimeout(resolve, 250))
    expect(await counting(async () => expect((await reader.retrieve(retired.id)).active).toBe(false))).toEqual([
      'GET /v1/prices/:id',
    ])
    // The stand-in refuses what a price cannot change, as the processor does.
    await expect(processor.prices.update(retired.id, { unit_amount: 100 } as never)).rejects.toMatchObject({
      statusCode: 400,
      param: 'unit_amount',
    })

    const service = billingRuntimeOf(payload()).require().prices
    const unknown = await counting(async () => {
      for (let view = 0; view < 20; view += 1)
        await expect(service.retrieve('price_does_not_exist')).rejects.toMatchObject({ statusCode: 404 })
    })
    expect(unknown).toEqual(['GET /v1/prices/:id'])
  })

  it('concurrent page views share one read', async () => {
    const reader = billingRuntimeOf(payload()).require().prices
    const processor = billingRuntimeOf(payload()).require().processor
    const fresh = await processor.prices.create({
      unit_amount: 700,
      currency: 'usd',
      product_data: { name: 'Read together' },
    })
    const calls = await counting(() => Promise.all(Array.from({ length: 25 }, () => reader.retrieve(fresh.id))))
    expect(calls).toEqual(['GET /v1/prices/:id'])
  })
})

describe('the success page reads a paid checkout once', () => {
  it('40 views of a paid checkout: one processor read; unknown ids stop at the page limit', async () => {
    const buyer = await createUser(payload(), 'customer')
    const { sessionId } = await buy(PRICES.standard, { as: buyer })
    await standIn.settled()
    as(buyer)
    hoisted.address = '203.0.113.50'
    const paid = await counting(async () => {
      for (let view = 0; view < 40; view += 1) {
        expect(
          renderToStaticMarkup(await SuccessPage({ searchParams: Promise.resolve({ session_id: sessionId }) })),
        ).toContain('data-testid="success-license"')
      }
    })
    expect(paid).toEqual(['GET /v1/checkout/sessions/:id'])

    // Made-up ids are each a read, until the address reaches the page's limit: then none.
    hoisted.address = '203.0.113.51'
    const limit = RATE_LIMITS['checkout_status:ip'].points
    const guesses = await counting(async () => {
      for (let view = 0; view < limit + 10; view += 1) {
        await SuccessPage({ searchParams: Promise.resolve({ session_id: `cs_test_madeup${view}` }) })
      }
    })
    expect(guesses).toHaveLength(limit)
  })
})

describe('calls that cannot be kept stop at their rate limit, before the processor is asked', () => {
  it(`the upgrade quote: ${RATE_LIMITS['checkout:account'].points} in 10 minutes, then 429 and no call`, async () => {
    const buyer = await createUser(payload(), 'customer')
    await buy(PRICES.standard, { as: buyer })
    await standIn.settled()
    const [license] = await rows(payload(), 'licenses', { user: { equals: buyer.user.id } })
    const limit = RATE_LIMITS['checkout:account'].points
    const statuses: number[] = []
    const calls = await counting(async () => {
      for (let quote = 0; quote < limit + 5; quote += 1)
        statuses.push(
          (await api('GET', `/licenses/${license!.id}/upgrade?plan=ultimate`, { as: buyer, address: '203.0.113.60' }))
            .status,
        )
    })
    // The buyer's own checkout spent one of the address-free account allowance: limit - 1 quotes pass.
    expect(statuses.filter((status) => status === 200).length).toBeGreaterThanOrEqual(limit - 1)
    expect(statuses.slice(-5)).toEqual([429, 429, 429, 429, 429])
    // The Ultimate price was read by the pages above: the quotes read nothing.
    expect(calls).toEqual([])
  })

  it(`the billing portal: ${RATE_LIMITS['billing_portal:account'].points} sessions in 10 minutes per account, then 429 and no call`, async () => {
    const limit = RATE_LIMITS['billing_portal:account'].points
    const statuses: number[] = []
    const calls = await counting(async () => {
      for (let open = 0; open < limit + 5; open += 1) {
        statuses.push(
          (
            await api('POST', '/customer_portal', {
              as: holder,
              body: { return_url: '/dashboard' },
              address: `203.0.113.${70 + (open % 3)}`,
            })
          ).status,
        )
      }
    })
    expect(statuses.slice(0, limit)).toEqual(Array(limit).fill(200))
    expect(statuses.slice(limit)).toEqual(Array(5).fill(429))
    expect(calls).toEqual(Array(limit).fill('POST /v1/billing_portal/sessions'))
  })

  it('the billing portal per address: another account behind the same address is stopped too', async () => {
    const limit = RATE_LIMITS['billing_portal:ip'].points
    const customers = await Promise.all(
      [0, 1, 2].map(async () => {
        const customer = await createUser(payload(), 'customer')
        await payload().update({
          collection: 'users',
          id: customer.user.id,
          data: {
            processorCustomerId: (
              await billingRuntimeOf(payload()).require().processor.customers.create({ email: customer.email })
            ).id,
          },
          overrideAccess: true,
        })
        return customer
      }),
    )
    const statuses: number[] = []
    const calls = await counting(async () => {
      for (let open = 0; open < limit + 3; open += 1)
        statuses.push(
          (await api('POST', '/customer_portal', { as: customers[open % 3], body: {}, address: '203.0.113.80' }))
            .status,
        )
    })
    expect(statuses.filter((status) => status === 200)).toHaveLength(limit)
    expect(calls).toHaveLength(limit)
  })

  it(`checkouts: ${RATE_LIMITS['checkout:ip'].points} per address in 10 minutes; the price is not read again for each`, async () => {
    const limit = RATE_LIMITS['checkout:ip'].points
    const statuses: number[] = []
    const calls = await counting(async () => {
      for (let attempt = 0; attempt < limit + 5; attempt += 1) {
        statuses.push(
          (
            await api('POST', '/checkout_sessions', {
              body: { priceId: PRICES.ultimate },
              address: '203.0.113.90',
              headers: { 'idempotency-key': `attempt-${attempt}` },
            })
          ).status,
        )
      }
    })
    expect(statuses.filter((status) => status === 200)).toHaveLength(limit)
    expect(statuses.slice(-5)).toEqual(Array(5).fill(429))
    expect(calls).toEqual(Array(limit).fill('POST /v1/checkout/sessions'))
  })

  it("the license id checks come first: a stranger's upgrade of the holder's license reads nothing from the processor", async () => {
    const stranger = await createUser(payload(), 'customer')
    const calls = await counting(async () => {
      expect((await api('GET', `/licenses/${licenseId}/upgrade?plan=ultimate`, { as: stranger })).status).toBe(404)
      expect(
        (await api('POST', `/licenses/${licenseId}/upgrade`, { as: stranger, body: { plan: 'ultimate' } })).status,
      ).toBe(404)
      expect((await api('POST', `/licenses/${licenseId}/renewal`, { as: stranger })).status).toBe(404)
    })
    expect(calls).toEqual([])
  })
})

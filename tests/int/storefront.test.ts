import './../support/billing-env'

import type { ReactNode } from 'react'
import { renderToReadableStream } from 'react-dom/server'
import { beforeAll, describe, expect, it, vi } from 'vitest'

import { PRICES, standIn } from '../support/billing-env'
import { api, createUser, type TestUser, usePayload } from '../support/payload'
import { seedStandInPlans } from '../support/billing'

/**
 * The storefront (`/` and `/pricing`, rewritten to storefront/[page]) is one cached page for every
 * visitor: nothing in it reads the session, the cookies or the query. The signed-in visitor's side
 * (plans owned, upgrades) comes from GET /pricing/visitor, and a failed checkout's notice from the
 * query in the browser. Pages are rendered as Next would render them, with the session mocked
 * (tests/support/server-actions.ts); the production build's caching is checked by scripts/smoke.sh.
 */
const hoisted = vi.hoisted((): { user: { current: unknown }; query: { current: string } } => ({
  user: { current: null },
  query: { current: '' },
}))

vi.mock('../../src/app/_lib/session', () =>
  import('../support/server-actions').then((m) => m.sessionModule(() => hoisted.user.current)),
)
vi.mock('next/navigation', () =>
  import('../support/server-actions').then((m) => ({
    ...m.navigationModule,
    notFound: () => {
      throw new Error('NEXT_NOT_FOUND')
    },
    useSearchParams: () => new URLSearchParams(hoisted.query.current),
  })),
)
vi.mock('next/cache', () => ({ revalidatePath: () => undefined, unstable_cache: <T>(fn: T) => fn }))
// The storefront must never read the request: these throw if it does.
vi.mock('next/headers', () => ({
  headers: () => Promise.reject(new Error('the storefront read the request headers')),
  cookies: () => Promise.reject(new Error('the storefront read the cookies')),
}))

const storefront = await import('../../src/app/(frontend)/storefront/[page]/page')
const { GET: visitorGet } = await import('../../src/app/(frontend)/pricing/visitor/route')
const { checkoutErrorSentence } = await import('../../src/app/(frontend)/_islands/pricing')
const { CHECKOUT_ERRORS } = await import('../../src/app/(frontend)/_components/checkout-errors')

const payload = usePayload()
let standardOwner: TestUser

beforeAll(async () => {
  await seedStandInPlans(payload())
  standardOwner = await createUser(payload(), 'customer')
  const checkout = await api<{ id: string }>('POST', '/checkout_sessions', {
    as: standardOwner,
    body: { priceId: PRICES.standard },
  })
  await standIn.pay(checkout.body.id, { email: standardOwner.email })
  await standIn.settled()
}, 120_000)

const html = async (node: ReactNode) => {
  const stream = await renderToReadableStream(node)
  await stream.allReady
  return new Response(stream).text()
}

const render = (page: string) => storefront.default({ params: Promise.resolve({ page }) }).then(html)

describe('the storefront page', () => {
  it('is rendered on first request and cached: no static params, revalidated within 60 s', () => {
    expect(storefront.revalidate).toBe(60)
    expect(storefront.generateStaticParams()).toEqual([])
  })

  it('is the same HTML for an anonymous visitor and a signed-in owner (nothing in it reads the visitor)', async () => {
    for (const page of ['home', 'pricing']) {
      hoisted.user.current = null
      const anonymous = await render(page)
      hoisted.user.current = standardOwner.user
      const signedIn = await render(page)
      expect(signedIn, page).toBe(anonymous)
      // "Your plan" and the owner's buttons are there for the islands script to show, hidden.
      expect(anonymous).toMatch(/<p class="owned-badge" hidden="">Your plan<\/p>/)
      expect(anonymous).not.toMatch(/data-variant="(?:owned|upgrade)"(?![^>]*hidden)/)
      expect(anonymous).toMatch(/<div data-variant="anonymous">/)
      expect(anonymous).toContain('Buy Standard')
      // One of the pages the host sends without Next's runtime (src/server/script-free.ts).
      expect(anonymous).toContain('<meta name="script-free" content="islands"/>')
    }
  })

  it('counts a view with a beacon the islands script sends, given the page only', async () => {
    for (const page of ['home', 'pricing']) {
      const rendered = await render(page)
      expect(rendered.match(/data-island="pricing-view"[^>]*/g), page).toEqual([
        `data-island="pricing-view" data-page="${page}"`,
      ])
      expect(rendered).not.toContain('pricing-views')
    }
  })

  it('headings in order: /pricing h1 then a h2 per plan; the home page h2 "Pricing" then a h3 per plan', async () => {
    const pricing = await render('pricing')
    expect(pricing).toMatch(/<h1>Pricing<\/h1>/)
    expect(pricing).toMatch(/<h2 id="pricing-plan-standard">Standard<\/h2>/)
    expect(pricing).not.toMatch(/<h3 id="pricing-plan-/)
    const home = await render('home')
    expect(home).toMatch(/<h2 id="pricing-heading">Pricing<\/h2>/)
    expect(home).toMatch(/<h3 id="home-plan-standard">Standard<\/h3>/)
  })

  it('any other page is not found; metadata names the public address', async () => {
    await expect(render('dashboard')).rejects.toThrow('NEXT_NOT_FOUND')
    await expect(render('__proto__')).rejects.toThrow('NEXT_NOT_FOUND')
    const metadata = await storefront.generateMetadata({ params: Promise.resolve({ page: 'pricing' }) })
    expect(metadata.alternates?.canonical).toBe(`${payload().config.serverURL}/pricing`)
  })
})

describe('GET /pricing/visitor', () => {
  const visitor = async () => {
    const response = await visitorGet()
    expect(response.headers.get('cache-control')).toBe('private, no-cache')
    return response.json()
  }

  it('an anonymous visitor: nothing of theirs', async () => {
    hoisted.user.current = null
    expect(await visitor()).toEqual({ signedIn: false, ownedPlanIds: [], upgrades: [] })
  })

  it('a Standard owner: Standard owned, and Ultimate offered as an upgrade priced as its checkout would charge', async () => {
    hoisted.user.current = standardOwner.user
    const plans = (await payload().find({ collection: 'plans', depth: 0, limit: 10 })).docs
    const standard = plans.find((plan) => plan.slug === 'standard')!
    const ultimate = plans.find((plan) => plan.slug === 'ultimate')!
    const answer = await visitor()
    expect(answer.signedIn).toBe(true)
    expect(answer.ownedPlanIds).toEqual([standard.id])
    expect(answer.upgrades).toHaveLength(1)
    expect(answer.upgrades[0]).toMatchObject({
      planId: ultimate.id,
      toSlug: 'ultimate',
      label: expect.stringMatching(/^Upgrade to Ultimate for \$/),
    })
    expect(answer.upgrades[0].note).toMatch(/paid for your Standard license counts towards it/)
  })
})

describe('the checkout error notice', () => {
  it('says why in words; an unknown or inherited code gets the general sentence, never itself', async () => {
    expect(checkoutErrorSentence('')).toBeNull()
    expect(checkoutErrorSentence('?checkout_error=rate_limited')).toBe(CHECKOUT_ERRORS.rate_limited)
    for (const code of ['made_up', '__proto__', 'constructor', '<script>']) {
      expect(checkoutErrorSentence(`?checkout_error=${encodeURIComponent(code)}`), code).toBe(
        CHECKOUT_ERRORS.invalid_request,
      )
    }
    // The page renders the notice empty and hidden: the sentence is set as text by the island.
    expect(await render('pricing')).toContain(
      '<p role="alert" class="error-box" data-island="checkout-error" hidden=""></p>',
    )
  })
})

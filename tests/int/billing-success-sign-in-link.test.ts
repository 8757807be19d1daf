import './../support/billing-env'

import type Stripe from 'stripe'
import { beforeAll, describe, expect, it, vi } from 'vitest'

import { createProcessorClient } from '../../src/billing/processor'
import { PROCESSOR_SECRET_KEY, smtp, standIn } from '../support/billing-env'
import { paidStandardCheckout, seedStandInPlans } from '../support/billing'
import { createUser, usePayload } from '../support/payload'
import { redirectOf } from '../support/server-actions'

/**
 * The success page's "Email me a sign-in link" (sendCheckoutSignInLink), called as Next calls a server
 * action: it sends a magic link to an anonymous checkout's email only, never says the address, and
 * refuses an account's checkout, an unknown or malformed session and a caller past the rate limit.
 */
vi.mock('../../src/app/_lib/session', () =>
  import('../support/server-actions').then((m) => m.sessionModule(() => null)),
)
vi.mock('next/navigation', () => import('../support/server-actions').then((m) => m.navigationModule))
vi.mock('next/headers', () => ({ headers: () => Promise.resolve(new Headers({ 'user-agent': 'success-page-test' })) }))

const { sendCheckoutSignInLink } = await import('../../src/app/(frontend)/success/actions')

const payload = usePayload()
let processor: Stripe

beforeAll(async () => {
  await seedStandInPlans(payload())
  processor = createProcessorClient({ secretKey: PROCESSOR_SECRET_KEY, apiUrl: standIn.url })
})

const paidCheckout = (email: string, userId?: number) => paidStandardCheckout(processor, email, userId)

const ask = (sessionId: string): Promise<string> => {
  const form = new FormData()
  form.set('sessionId', sessionId)
  return redirectOf(() => sendCheckoutSignInLink(form))
}

/** Sign-in links sent to `email`, once the queued emails have run (the license email goes there too). */
const linksTo = async (email: string) => {
  await payload().jobs.run({ limit: 100 })
  return smtp.messages.filter(
    (message) => message.subject?.startsWith('Your sign-in link') && JSON.stringify(message.to).includes(email),
  ).length
}

describe("the success page's sign-in link", () => {
  it('emails an anonymous checkout its magic link and tells the page only that it was sent', async () => {
    const email = `anon-link-${Date.now()}@example.test`
    const sessionId = await paidCheckout(email)
    const target = await ask(sessionId)
    expect(target).toBe(`/success?session_id=${encodeURIComponent(sessionId)}&sent=1`)
    expect(target).not.toContain(email)
    expect(await linksTo(email)).toBe(1)
    const message = smtp.messages.find(
      (candidate) => candidate.subject?.startsWith('Your sign-in link') && JSON.stringify(candidate.to).includes(email),
    )
    expect(message?.html).toContain('type=magiclink')
  })

  it("refuses an account's checkout, an unknown session and a malformed id, sending nothing", async () => {
    const buyer = await createUser(payload(), 'customer')
    const accountSession = await paidCheckout(buyer.email, buyer.user.id)
    const before = await linksTo(buyer.email)
    expect(await ask(accountSession)).toBe(
      `/success?session_id=${encodeURIComponent(accountSession)}&link_error=invalid_request`,
    )
    expect(await ask('cs_test_doesnotexist')).toBe(
      '/success?session_id=cs_test_doesnotexist&link_error=invalid_request',
    )
    const malformed = "cs_x' OR 1=1"
    expect(await ask(malformed)).toBe(`/success?session_id=${encodeURIComponent(malformed)}&link_error=invalid_request`)
    expect(await linksTo(buyer.email)).toBe(before)
  })

  it('stops at the magic-link limit for the checkout email (5 in 10 minutes)', async () => {
    const email = `anon-limit-${Date.now()}@example.test`
    const sessionId = await paidCheckout(email)
    const targets: string[] = []
    for (let attempt = 0; attempt < 6; attempt += 1) targets.push(await ask(sessionId))
    expect(targets.slice(0, 5).every((target) => target.endsWith('&sent=1'))).toBe(true)
    expect(targets[5]).toBe(`/success?session_id=${encodeURIComponent(sessionId)}&link_error=rate_limited`)
    expect(await linksTo(email)).toBe(5)
  })

  it('says "unavailable" when the processor cannot be reached, and sends nothing', async () => {
    const email = `anon-down-${Date.now()}@example.test`
    const sessionId = await paidCheckout(email)
    standIn.failNext({ method: 'GET', path: /^\/v1\/checkout\/sessions\//, status: 500, count: 2 })
    expect(await ask(sessionId)).toBe(`/success?session_id=${encodeURIComponent(sessionId)}&link_error=unavailable`)
    expect(await linksTo(email)).toBe(0)
  })
})

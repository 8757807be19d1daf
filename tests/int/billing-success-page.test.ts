import './../support/billing-env'

import type Stripe from 'stripe'
import { beforeAll, describe, expect, it } from 'vitest'

import { checkoutView, maskEmail, retrieveCheckoutSession } from '../../src/billing/checkout-status'
import { createProcessorClient } from '../../src/billing/processor'
import { PRICES, PROCESSOR_SECRET_KEY, standIn } from '../support/billing-env'
import { paidStandardCheckout, seedStandInPlans } from '../support/billing'
import { createUser, usePayload } from '../support/payload'

const payload = usePayload()
let processor: Stripe

beforeAll(async () => {
  await seedStandInPlans(payload())
  processor = createProcessorClient({ secretKey: PROCESSOR_SECRET_KEY, apiUrl: standIn.url })
})

/** A paid Standard checkout (tests/support/billing.ts), as the success page reads it. */
const buy = async (email: string, userId?: number) =>
  (await retrieveCheckoutSession(payload(), await paidStandardCheckout(processor, email, userId)))!

describe('the success page: what a checkout shows to whom', () => {
  it('its signed-in buyer sees the license the webhook granted; signed out, a sign-in; another account, nothing', async () => {
    const buyer = await createUser(payload(), 'customer')
    const session = await buy(buyer.email, buyer.user.id)
    const view = await checkoutView(payload(), session, buyer.user)
    expect(view).toMatchObject({
      kind: 'owner',
      planName: 'Standard',
      license: { status: 'active', key: expect.stringMatching(/^KIT(-[0-9A-Z]{5}){4}$/) },
    })
    expect(await checkoutView(payload(), session, null)).toEqual({ kind: 'sign_in' })
    const other = await createUser(payload(), 'customer')
    expect(await checkoutView(payload(), session, other.user)).toEqual({ kind: 'other_account' })
  })

  it('an anonymous purchase shows the masked checkout email to a visitor, the license to the verified owner of that email', async () => {
    const email = `anon-${Date.now()}@example.test`
    const session = await buy(email)
    expect(await checkoutView(payload(), session, null)).toEqual({ kind: 'anonymous', maskedEmail: maskEmail(email) })
    expect(JSON.stringify(await checkoutView(payload(), session, null))).not.toContain(email)
    const owner = await createUser(payload(), 'customer', { email })
    expect(await checkoutView(payload(), session, owner.user)).toMatchObject({
      kind: 'owner',
      license: { status: 'active' },
    })
    const unverified = { ...owner.user, emailVerified: false }
    expect(await checkoutView(payload(), session, unverified)).toEqual({ kind: 'other_account' })
  })

  it('an unpaid checkout says so; unknown and malformed ids are unknown (malformed ones never reach the processor)', async () => {
    const open = await processor.checkout.sessions.create({
      mode: 'payment',
      line_items: [{ price: PRICES.standard, quantity: 1 }],
      success_url: 'http://localhost:3000/success',
      cancel_url: 'http://localhost:3000/pricing',
    })
    expect(await checkoutView(payload(), await retrieveCheckoutSession(payload(), open.id), null)).toEqual({
      kind: 'unpaid',
    })
    expect(await retrieveCheckoutSession(payload(), 'cs_test_doesnotexist')).toBeNull()
    standIn.failNext({ method: 'GET', path: /^\/v1\/checkout\/sessions\//, status: 500, count: 2 })
    expect(await retrieveCheckoutSession(payload(), "cs_x' OR 1=1")).toBeNull()
    expect(await retrieveCheckoutSession(payload(), '../../v1/customers')).toBeNull()
    // The injected failures (the SDK retries once) are still pending: no malformed id made a request.
    await expect(retrieveCheckoutSession(payload(), 'cs_test_another')).rejects.toThrow()
  })

  it('masks an address to its first and last character and the domain', () => {
    expect(maskEmail('jane.doe@example.com')).toBe('j•••e@example.com')
    expect(maskEmail('jo@example.com')).toBe('j•••@example.com')
  })
})

import crypto from 'node:crypto'

import Stripe from 'stripe'
import { describe, expect, it } from 'vitest'

import { keyMode } from '../../src/billing/processor'
import { SUBSCRIPTION_STATUSES } from '../../src/licensing/subscription-statuses'
import { verifyEvent } from '../../src/billing/webhook/verify'
import { sameSitePath } from '../../src/http/paths'
import { generateLicenseKey, LICENSE_KEY_PATTERN } from '../../src/licensing/keys'
import { type DisputeState, laterDisputeState, licenseStateFor, worstDisputeState } from '../../src/licensing/status'

const processor = new Stripe('sk_test_rules', { apiVersion: '2026-10-28.endive' })
const SECRET = 'whsec_rules_secret'
const body = JSON.stringify({ id: 'evt_1', object: 'event', type: 'ping', livemode: false, data: { object: {} } })
const sign = (payload: string, secret: string, timestamp: number) =>
  crypto.createHmac('sha256', secret).update(`${timestamp}.${payload}`).digest('hex')
const now = Math.floor(Date.now() / 1000)

describe('webhook signatures', () => {
  it('accepts a valid signature', () => {
    expect(verifyEvent(processor, body, `t=${now},v1=${sign(body, SECRET, now)}`, [SECRET], now).id).toBe('evt_1')
  })

  it.each([
    ['missing', null, /missing/],
    ['empty', '', /missing/],
    ['malformed', 'garbage', /malformed/],
    ['no v1', `t=${now}`, /malformed/],
    ['non-hex v1', `t=${now},v1=zz`, /malformed/],
    ['wrong secret', `t=${now},v1=${sign(body, 'whsec_other', now)}`, /No signature matches/],
    ['301 s old', `t=${now - 301},v1=${sign(body, SECRET, now - 301)}`, /too far/],
    ['301 s in the future', `t=${now + 301},v1=${sign(body, SECRET, now + 301)}`, /too far/],
    ['body altered', `t=${now},v1=${sign(`${body} `, SECRET, now)}`, /No signature matches/],
  ])('rejects a %s signature with invalid_signature', (_name, header, message) => {
    expect(() => verifyEvent(processor, body, header, [SECRET], now)).toThrow(message)
    try {
      verifyEvent(processor, body, header, [SECRET], now)
    } catch (error) {
      expect(error).toMatchObject({ status: 400, code: 'invalid_signature' })
    }
  })

  it('accepts 300 s either way', () => {
    for (const t of [now - 300, now + 300]) {
      expect(verifyEvent(processor, body, `t=${t},v1=${sign(body, SECRET, t)}`, [SECRET], now).id).toBe('evt_1')
    }
  })

  it('accepts either of two v1 values while the processor rolls its secret', () => {
    const header = `t=${now},v1=${sign(body, 'whsec_old', now)},v1=${sign(body, SECRET, now)}`
    expect(verifyEvent(processor, body, header, [SECRET], now).id).toBe('evt_1')
  })

  it('accepts either of our two secrets while we roll ours', () => {
    const header = `t=${now},v1=${sign(body, 'whsec_next', now)}`
    expect(verifyEvent(processor, body, header, [SECRET, 'whsec_next'], now).id).toBe('evt_1')
  })
})

describe('license state', () => {
  const subscription = (status: (typeof SUBSCRIPTION_STATUSES)[number]) =>
    licenseStateFor(
      { kind: 'subscription', status, currentPeriodEnd: new Date('2030-01-01T00:00:00Z'), disputeStatus: 'none' },
      7,
    )

  it('maps every subscription status explicitly', () => {
    const mapped = Object.fromEntries(
      SUBSCRIPTION_STATUSES.map((status) => [status, subscription(status)?.status ?? null]),
    )
    expect(mapped).toEqual({
      active: 'active',
      trialing: 'active',
      past_due: 'active',
      canceled: 'expired',
      unpaid: 'expired',
      incomplete: null,
      incomplete_expired: 'expired',
      paused: 'expired',
    })
  })

  it('keeps a subscription license valid until the period end plus the grace days', () => {
    expect(subscription('past_due')?.validUntil?.toISOString()).toBe('2030-01-08T00:00:00.000Z')
    expect(subscription('active')?.validUntil?.toISOString()).toBe('2030-01-08T00:00:00.000Z')
  })

  it('grants a one-time purchase only once paid, revokes on a full refund or a lost dispute, suspends while disputed', () => {
    const purchase = (
      over: Partial<{
        status: 'pending' | 'succeeded' | 'failed'
        refundedAmount: number
        disputeStatus: 'none' | 'open' | 'won' | 'lost'
      }>,
    ) =>
      licenseStateFor(
        {
          kind: 'one_time_purchase',
          status: 'succeeded',
          amount: 14900,
          refundedAmount: 0,
          disputeStatus: 'none',
          ...over,
        },
        7,
      )?.status ?? null
    expect(purchase({ status: 'pending' })).toBeNull()
    expect(purchase({ status: 'failed' })).toBeNull()
    expect(purchase({})).toBe('active')
    expect(purchase({ refundedAmount: 5000 })).toBe('active')
    expect(purchase({ refundedAmount: 14900 })).toBe('revoked')
    expect(purchase({ disputeStatus: 'open' })).toBe('suspended')
    expect(purchase({ disputeStatus: 'won' })).toBe('active')
    expect(purchase({ disputeStatus: 'lost' })).toBe('revoked')
  })
})

describe('chargebacks and lapses', () => {
  const facts = (
    over: Partial<{
      status: (typeof SUBSCRIPTION_STATUSES)[number]
      currentPeriodEnd: Date
      disputeStatus: DisputeState
    }>,
  ) => ({
    kind: 'subscription' as const,
    status: 'active' as const,
    currentPeriodEnd: new Date('2030-01-01T00:00:00Z'),
    disputeStatus: 'none' as const,
    ...over,
  })

  it("a subscription's dispute suspends or revokes before its status counts; won, the status decides again", () => {
    expect(licenseStateFor(facts({ disputeStatus: 'open' }), 7)?.status).toBe('suspended')
    expect(licenseStateFor(facts({ disputeStatus: 'lost' }), 7)).toMatchObject({
      status: 'revoked',
      reason: 'dispute_lost',
    })
    expect(licenseStateFor(facts({ disputeStatus: 'won' }), 7)?.status).toBe('active')
    expect(licenseStateFor(facts({ disputeStatus: 'won', status: 'canceled' }), 7)?.status).toBe('expired')
  })

  it('a paid period whose grace days are over has lapsed, whatever the last status said', () => {
    const end = new Date('2030-01-01T00:00:00Z')
    expect(
      licenseStateFor(facts({ status: 'past_due', currentPeriodEnd: end }), 7, new Date('2030-01-07T23:59:59Z'))
        ?.status,
    ).toBe('active')
    expect(
      licenseStateFor(facts({ status: 'past_due', currentPeriodEnd: end }), 7, new Date('2030-01-08T00:00:00Z')),
    ).toMatchObject({ status: 'expired', reason: 'lapsed' })
    expect(
      licenseStateFor(facts({ status: 'active', currentPeriodEnd: end }), 7, new Date('2030-02-01T00:00:00Z'))?.status,
    ).toBe('expired')
  })

  it('a dispute only moves forward, and the worst of several decides', () => {
    expect(laterDisputeState('none', 'open')).toBe('open')
    expect(laterDisputeState('lost', 'open')).toBe('lost')
    expect(laterDisputeState('won', 'none')).toBe('won')
    expect(laterDisputeState('open', 'won')).toBe('won')
    expect(worstDisputeState(['won', 'lost', 'open'])).toBe('lost')
    expect(worstDisputeState(['won', 'open', 'none'])).toBe('open')
    expect(worstDisputeState(['none', 'won'])).toBe('won')
    expect(worstDisputeState([])).toBe('none')
  })
})

describe('license keys', () => {
  it('are grouped Crockford base32 with 100 random bits, and do not repeat', () => {
    const keys = Array.from({ length: 5_000 }, generateLicenseKey)
    for (const key of keys.slice(0, 50)) expect(key).toMatch(LICENSE_KEY_PATTERN)
    expect(new Set(keys).size).toBe(keys.length)
    // every one of the 32 symbols shows up in each position: no position is constant
    const firstGroup = new Set(keys.map((key) => key[4]))
    expect(firstGroup.size).toBe(32)
  })
})

describe('key modes', () => {
  it('tells test and live keys apart by prefix', () => {
    expect(keyMode('sk_test_123')).toBe('test')
    expect(keyMode('sk_live_123')).toBe('live')
    expect(keyMode('pk_live_123')).toBe('live')
    expect(keyMode('rk_test_123')).toBe('test')
    expect(keyMode('whsec_123')).toBeNull()
  })
})

describe('same-site return paths', () => {
  const base = 'https://kit.example.com'
  it.each(['/dashboard', '/dashboard?tab=billing#top', '/a/b'])('keeps %s', (path) => {
    expect(sameSitePath(path, base)).toBe(path)
  })
  it.each([
    '//evil.example',
    '/\\evil.example',
    '/%2F%2Fevil.example',
    '/%5Cevil.example',
    'https://evil.example',
    'javascript:alert(1)',
    'dashboard',
    '',
    '/\u0000x',
    42,
  ])('refuses %s', (path) => {
    expect(sameSitePath(path, base)).toBeNull()
  })
})

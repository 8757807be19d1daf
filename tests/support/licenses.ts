import type { Payload } from 'payload'

import { generateLicenseKey } from '../../src/licensing/keys'
import { seedPlans } from '../../src/plans/seed'
import type { LicenseStatus } from '../../src/licensing/status'
import type { License } from '../../src/payload-types'
import type { TestUser } from './payload'

export type PlanSlug = 'free' | 'standard' | 'ultimate' | 'pro'
export const PLAN_SLUGS: PlanSlug[] = ['free', 'standard', 'ultimate', 'pro']
/** Every license state; `lapsed` is an active license whose validity ran out without an event. */
export type LicenseState = LicenseStatus | 'lapsed'
export const LICENSE_STATES: LicenseState[] = ['active', 'suspended', 'revoked', 'expired', 'lapsed']

/**
 * A license of the plan in the given state, as staff grant one by hand (source `manual`): the quick way
 * to cover every plan and state. Purchases through the stand-in are in the billing tests.
 */
export const grantLicense = async (
  payload: Payload,
  owner: TestUser,
  plan: PlanSlug,
  state: LicenseState,
): Promise<License> => {
  const { docs } = await payload.find({ collection: 'plans', where: { slug: { equals: plan } }, limit: 1, depth: 0 })
  if (!docs[0]) throw new Error(`no plan ${plan}: seed the plans first`)
  return payload.create({
    collection: 'licenses',
    data: {
      key: generateLicenseKey(),
      user: owner.user.id,
      email: owner.email,
      plan: docs[0].id,
      source: 'manual',
      seats: 1,
      status: state === 'lapsed' ? 'active' : state,
      validUntil: state === 'lapsed' ? new Date(Date.now() - 60_000).toISOString() : null,
      grantedAt: new Date().toISOString(),
    },
    overrideAccess: true,
  })
}

/** Whether a plan in a state grants a feature key the free plan does not. */
export const grantsPaidKey = (
  plan: PlanSlug,
  state: LicenseState,
  key: 'templates' | 'support' | 'api' | 'advanced',
) => {
  if (state !== 'active') return false
  const keys: Record<PlanSlug, string[]> = {
    free: ['basic'],
    standard: ['basic', 'templates', 'support'],
    ultimate: ['basic', 'templates', 'support', 'api', 'advanced'],
    pro: ['basic', 'templates', 'support', 'api', 'analytics', 'custom_domain', 'advanced'],
  }
  return keys[plan].includes(key)
}

/**
 * The four plans with made-up prices, for files that sell nothing through the processor (the billing
 * tests seed the stand-in's prices instead: tests/support/billing.ts).
 */
export const seedPlansWithoutProcessor = (payload: Payload) =>
  seedPlans(payload, {
    standardLifetime: 'price_std',
    ultimateLifetime: 'price_ult',
    proMonthly: null,
    proYearly: null,
  })

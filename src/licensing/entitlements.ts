import type { Access, Payload, PayloadRequest } from 'payload'

import { ServiceError } from '../http/errors'
import type { License, Plan } from '../payload-types'
import type { FeatureKey } from '../plans/features'
import { isLicenseUsable } from './status'

export type Entitlements = {
  /** Usable licenses, best plan first. */
  licenses: (License & { plan: Plan })[]
  features: Set<FeatureKey>
  hasPaidAccess: boolean
}

const NO_ENTITLEMENTS: Entitlements = { licenses: [], features: new Set(), hasPaidAccess: false }

const planRank = (plan: Plan) => plan.featureAccess?.length ?? 0

/**
 * What a user may use right now: their usable licenses (active, not past their validity) and the
 * union of those plans' feature keys, plus the free plan's keys for every signed-in user.
 */
export const entitlementsOf = async (payload: Payload, userId: number | null | undefined, req?: PayloadRequest): Promise<Entitlements> => {
  if (!userId) return NO_ENTITLEMENTS
  const [licenses, free] = await Promise.all([
    payload.find({ collection: 'licenses', where: { and: [{ user: { equals: userId } }, { status: { equals: 'active' } }] }, depth: 1, limit: 100, req }),
    payload.find({ collection: 'plans', where: { and: [{ isFree: { equals: true } }, { active: { equals: true } }] }, depth: 0, limit: 10, req }),
  ])
  const now = new Date()
  const usable = licenses.docs
    .filter((license): license is License & { plan: Plan } => isLicenseUsable(license, now) && typeof license.plan === 'object' && license.plan !== null)
    .sort((a, b) => planRank(b.plan) - planRank(a.plan))
  const features = new Set<FeatureKey>()
  for (const plan of [...free.docs, ...usable.map((license) => license.plan)]) {
    for (const key of plan.featureAccess ?? []) features.add(key)
  }
  return { licenses: usable, features, hasPaidAccess: usable.some((license) => !license.plan.isFree) }
}

/** Whether the user has an active license of a paid plan. */
export const hasAccess = async (payload: Payload, userId: number | null | undefined): Promise<boolean> =>
  (await entitlementsOf(payload, userId)).hasPaidAccess

/** Whether the user's plans (or the free plan) grant the feature key. */
export const canAccessFeature = async (payload: Payload, userId: number | null | undefined, key: FeatureKey): Promise<boolean> =>
  (await entitlementsOf(payload, userId)).features.has(key)

/** Throws a 403 `feature_required` unless the user's plans grant the feature key. */
export const requireFeature = async (payload: Payload, userId: number | null | undefined, key: FeatureKey): Promise<void> => {
  if (!(await canAccessFeature(payload, userId, key))) {
    throw new ServiceError(403, 'feature_required', `Your plan does not include "${key}".`)
  }
}

/**
 * A Payload access rule that lets a collection (or operation) through only for users whose plans
 * grant the feature key. Computed once per request.
 */
export const featureAccess =
  (key: FeatureKey): Access =>
  async ({ req }) => {
    if (!req.user) return false
    const cache = (req.context.entitlements ??= new Map<number, Promise<Entitlements>>()) as Map<number, Promise<Entitlements>>
    const userId = req.user.id as number
    if (!cache.has(userId)) cache.set(userId, entitlementsOf(req.payload, userId, req))
    return (await cache.get(userId)!).features.has(key)
  }

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

/** The `req.context` key of a request's entitlements, one lookup per user however many checks run. */
const CACHE_KEY = 'entitlements'

type EntitlementsCache = Map<number, Promise<Entitlements>>

const cacheOf = (req: PayloadRequest): EntitlementsCache => {
  const existing = req.context[CACHE_KEY]
  if (existing instanceof Map) return existing as EntitlementsCache
  const cache: EntitlementsCache = new Map()
  req.context[CACHE_KEY] = cache
  return cache
}

const lookUp = async (payload: Payload, userId: number, req?: PayloadRequest): Promise<Entitlements> => {
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

/**
 * What a user may use right now: their usable licenses (active, not past their validity) and the
 * union of those plans' feature keys, plus the free plan's keys for every signed-in user. Given a
 * request, the answer is looked up once per user and kept in `req.context` for the request's life
 * (a failed lookup is not kept).
 */
export const entitlementsOf = (payload: Payload, userId: number | null | undefined, req?: PayloadRequest): Promise<Entitlements> => {
  if (!userId) return Promise.resolve(NO_ENTITLEMENTS)
  if (!req) return lookUp(payload, userId)
  const cache = cacheOf(req)
  let pending = cache.get(userId)
  if (!pending) {
    pending = lookUp(payload, userId, req)
    cache.set(userId, pending)
    pending.catch(() => cache.delete(userId))
  }
  return pending
}

/** The signed-in account's id (API users of other collections have no licenses). */
const accountIdOf = (req: PayloadRequest): number | null =>
  req.user && req.user.collection === 'users' ? (req.user.id as number) : null

/** The entitlements of the request's signed-in user (none when anonymous), from the request's cache. */
export const requestEntitlements = (req: PayloadRequest): Promise<Entitlements> => entitlementsOf(req.payload, accountIdOf(req), req)

/** Whether the user has an active license of a paid plan. */
export const hasAccess = async (payload: Payload, userId: number | null | undefined, req?: PayloadRequest): Promise<boolean> =>
  (await entitlementsOf(payload, userId, req)).hasPaidAccess

/** Whether the user's plans (or the free plan) grant the feature key. */
export const canAccessFeature = async (payload: Payload, userId: number | null | undefined, key: FeatureKey, req?: PayloadRequest): Promise<boolean> =>
  (await entitlementsOf(payload, userId, req)).features.has(key)

/** Throws a 403 `feature_required` unless the user's plans grant the feature key. */
export const requireFeature = async (payload: Payload, userId: number | null | undefined, key: FeatureKey, req?: PayloadRequest): Promise<void> => {
  if (!(await canAccessFeature(payload, userId, key, req))) {
    throw new ServiceError(403, 'feature_required', `Your plan does not include "${key}".`)
  }
}

/**
 * The access factory of every gated collection and operation: lets the request through only for a
 * signed-in user whose plans grant the feature key. Every check in one request shares one lookup.
 */
export const featureAccess =
  (key: FeatureKey): Access =>
  async ({ req }) =>
    accountIdOf(req) !== null && (await requestEntitlements(req)).features.has(key)

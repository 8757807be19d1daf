import type { Access, Payload, PayloadRequest } from 'payload'

import type { SqlRow } from '../db/rows'
import { license_seats, licenses, plans, plans_feature_access } from '../db/schema.generated'
import { runOn, statement } from '../db/statements'
import { isoTimestamp, sql } from '../db/transaction'
import { accountOf } from '../http/account'
import { ServiceError } from '../http/errors'
import { type FeatureKey, isFeatureKey } from '../plans/features'
import { isLicenseUsable } from './status'
import type { UpdateWindow } from './update-window'

/** What entitlement checks need of a usable license and its plan (not the whole documents). */
export type EntitledLicense = {
  id: number
  /** false for a license the user holds a claimed team seat on (docs/TEAMS.md): its features, not its management. */
  owned: boolean
  validUntil: string | null
  /** Which releases it may download (src/licensing/update-window.ts). */
  updates: UpdateWindow
  plan: { id: number; slug: string; isFree: boolean; featureAccess: FeatureKey[] }
}

export type Entitlements = {
  /** Usable licenses, best plan first. */
  licenses: EntitledLicense[]
  features: Set<FeatureKey>
  hasPaidAccess: boolean
}

const NO_ENTITLEMENTS: Entitlements = { licenses: [], features: new Set(), hasPaidAccess: false }

const planRank = (plan: EntitledLicense['plan']) => plan.featureAccess.length

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

// The license's columns come through a LEFT JOIN (a free plan without a license), each nullable already.
export type EntitlementRow = Pick<
  SqlRow<typeof licenses>,
  'valid_until' | 'update_policy' | 'updates_major' | 'updates_until'
> &
  Pick<SqlRow<typeof plans>, 'slug' | 'is_free' | 'active'> & {
    license_id: number | null
    owned: boolean | null
    /** When the license was created (newest first among equals). */
    granted: string | null
    plan_id: number
    features: string[] | null
  }

/**
 * One query on every download, access check and API-key request: the user's active licenses (their
 * own, and those they hold a claimed team seat on) with their plans' feature keys, and the active free
 * plans (whose keys every signed-in user has).
 */
export const ENTITLEMENTS = statement<'userId', EntitlementRow>((p) => {
  // The user's active licenses, each arm by its own index: owned (licenses.user_id), and those of a claimed seat (license_seats.member_id).
  const columns = sql`${licenses.id} AS license_id, ${licenses.plan} AS license_plan, ${licenses.validUntil}, ${licenses.updatePolicy}, ${licenses.updatesMajor}, ${licenses.updatesUntil}, ${licenses.createdAt} AS granted`
  const mine = sql`(SELECT ${columns}, true AS owned FROM ${licenses} WHERE ${licenses.user} = ${p.userId} AND ${licenses.status} = 'active'
      UNION ALL
      SELECT ${columns}, false AS owned FROM ${license_seats} JOIN ${licenses} ON ${licenses.id} = ${license_seats.license}
        WHERE ${license_seats.member} = ${p.userId} AND ${license_seats.status} = 'claimed' AND ${licenses.status} = 'active')`
  return sql`SELECT mine.license_id, mine.owned, mine.granted, mine.valid_until, mine.update_policy, mine.updates_major, mine.updates_until, ${plans.id} AS plan_id, ${plans.slug}, ${plans.isFree}, ${plans.active},
          ARRAY(SELECT ${plans_feature_access.value}::text FROM ${plans_feature_access}
                WHERE ${plans_feature_access.parent} = ${plans.id} ORDER BY ${plans_feature_access.order}) AS features
        FROM ${plans}
        LEFT JOIN ${mine} AS mine ON mine.license_plan = ${plans.id}
        WHERE mine.license_id IS NOT NULL OR (${plans.isFree} AND ${plans.active})
        ORDER BY mine.granted DESC NULLS LAST`
})

/** What ENTITLEMENTS' rows (in its order) grant now. */
export const entitlementsFromRows = (rows: EntitlementRow[]): Entitlements => {
  const now = new Date()
  const features = new Set<FeatureKey>()
  const usable: EntitledLicense[] = []
  const granted = new Map<EntitledLicense, number>()
  for (const row of rows) {
    const featureAccess = (row.features ?? []).filter(isFeatureKey)
    const validUntil = isoTimestamp(row.valid_until)
    const isFree = row.is_free === true
    // The same rule as everywhere else, with this process's clock: active and not past its end.
    const usableLicense = row.license_id !== null && isLicenseUsable({ status: 'active', validUntil }, now)
    const updates: UpdateWindow = {
      policy: row.update_policy ?? 'lifetime',
      major: row.updates_major === null ? null : Number(row.updates_major),
      until: isoTimestamp(row.updates_until),
    }
    if (usableLicense) {
      const license: EntitledLicense = {
        id: row.license_id!,
        owned: row.owned === true,
        validUntil,
        updates,
        plan: { id: row.plan_id, slug: row.slug, isFree, featureAccess },
      }
      usable.push(license)
      granted.set(license, row.granted === null ? 0 : new Date(row.granted).getTime())
    }
    if (usableLicense || (isFree && row.active === true)) for (const key of featureAccess) features.add(key)
  }
  // Best plan first, owned before a seat, then the newest: whatever order the rows came in.
  usable.sort(
    (a, b) =>
      planRank(b.plan) - planRank(a.plan) ||
      Number(b.owned) - Number(a.owned) ||
      (granted.get(b) ?? 0) - (granted.get(a) ?? 0),
  )
  return { licenses: usable, features, hasPaidAccess: usable.some((license) => !license.plan.isFree) }
}

const lookUp = async (payload: Payload, userId: number, req?: PayloadRequest): Promise<Entitlements> =>
  entitlementsFromRows(await runOn(payload, req, ENTITLEMENTS, { userId }))

/**
 * The request's entitlements of the user when a check already looked them up (an API key's own check),
 * else null: a caller that reads them together with something else (the download) keeps them with
 * `keepEntitlements`.
 */
export const keptEntitlements = (req: PayloadRequest, userId: number): Promise<Entitlements> | null =>
  cacheOf(req).get(userId) ?? null

/** Keeps entitlements read by another statement for the rest of the request (not kept when it failed). */
export const keepEntitlements = (req: PayloadRequest, userId: number, pending: Promise<Entitlements>): void => {
  const cache = cacheOf(req)
  cache.set(userId, pending)
  pending.catch(() => cache.delete(userId))
}

/**
 * What a user may use right now: their usable licenses (active, not past their validity) and the
 * union of those plans' feature keys, plus the free plan's keys for every signed-in user. Given a
 * request, the answer is looked up once per user and kept in `req.context` for the request's life
 * (a failed lookup is not kept).
 */
export const entitlementsOf = (
  payload: Payload,
  userId: number | null | undefined,
  req?: PayloadRequest,
): Promise<Entitlements> => {
  if (!userId) return Promise.resolve(NO_ENTITLEMENTS)
  if (!req) return lookUp(payload, userId)
  const kept = keptEntitlements(req, userId)
  if (kept) return kept
  const pending = lookUp(payload, userId, req)
  keepEntitlements(req, userId, pending)
  return pending
}

/** The signed-in account's id (API users of other collections have no licenses). */
const accountIdOf = (req: PayloadRequest): number | null => accountOf(req)?.id ?? null

/** The entitlements of the request's signed-in user (none when anonymous), from the request's cache. */
export const requestEntitlements = (req: PayloadRequest): Promise<Entitlements> =>
  entitlementsOf(req.payload, accountIdOf(req), req)

/** Whether the user has an active license of a paid plan. */
export const hasAccess = async (
  payload: Payload,
  userId: number | null | undefined,
  req?: PayloadRequest,
): Promise<boolean> => (await entitlementsOf(payload, userId, req)).hasPaidAccess

/** Whether the user's plans (or the free plan) grant the feature key. */
export const canAccessFeature = async (
  payload: Payload,
  userId: number | null | undefined,
  key: FeatureKey,
  req?: PayloadRequest,
): Promise<boolean> => (await entitlementsOf(payload, userId, req)).features.has(key)

/** Throws a 403 `feature_required` unless the user's plans grant the feature key. */
export const requireFeature = async (
  payload: Payload,
  userId: number | null | undefined,
  key: FeatureKey,
  req?: PayloadRequest,
): Promise<void> => {
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

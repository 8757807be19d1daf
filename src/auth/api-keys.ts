import crypto from 'node:crypto'

import {
  type Access,
  type AfterErrorHook,
  type AuthStrategy,
  type AuthStrategyResult,
  type CollectionBeforeDeleteHook,
  type CollectionConfig,
  Forbidden,
  type Payload,
  type PayloadRequest,
  UnauthorizedError,
  type Where,
} from 'payload'

import { and } from '../access/compose'
import type { SqlRow } from '../db/rows'
import { api_keys, users } from '../db/schema.generated'
import { runOn, statement } from '../db/statements'
import { bare, executeOn, inTransaction, isoTimestamp, lockKey, sql } from '../db/transaction'
import { AUTH_REFUSAL } from '../http/endpoint'
import { errorBody, ServiceError } from '../http/errors'
import {
  canAccessFeature,
  ENTITLEMENTS,
  type EntitlementRow,
  entitlementsFromRows,
  keepEntitlements,
} from '../licensing/entitlements'
import type { ApiKey, User } from '../payload-types'
import { ACCOUNT_COLUMNS, accountFromRow, type AccountRow } from './account-read'
import { asRateLimited, limiterOf } from './rate-limit'

/** The strategy's name, which Payload's user carries as `_strategy`: the mark of a key's request. */
export const API_KEY_STRATEGY = 'api-key'

/** Live (not revoked) keys one user may hold. */
export const MAX_LIVE_API_KEYS = 10

/** `lastUsedAt` is written at most this often per key, not on every request. */
const LAST_USED_INTERVAL_MS = 60_000

const PREFIX_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789'
const SECRET_BYTES = 32

/** `kit_` + 8 public characters + `_` + 32 random bytes in base64url (43 characters). */
const KEY_PATTERN = /^kit_[a-z0-9]{8}_[A-Za-z0-9_-]{43}$/

export type GeneratedKey = { key: string; prefix: string; hash: string }

/** The stored form of a key: its SHA-256 (the key has 256 random bits, so no slow hash is needed). */
export const hashApiKey = (key: string): string => crypto.createHash('sha256').update(key).digest('hex')

export const generateApiKey = (): GeneratedKey => {
  const publicPart = Array.from({ length: 8 }, () => PREFIX_ALPHABET[crypto.randomInt(PREFIX_ALPHABET.length)]).join('')
  const prefix = `kit_${publicPart}`
  const key = `${prefix}_${crypto.randomBytes(SECRET_BYTES).toString('base64url')}`
  return { key, prefix, hash: hashApiKey(key) }
}

const invalidKey = () =>
  new ServiceError(401, 'invalid_api_key', 'This API key is not valid: it is unknown, malformed or revoked.')
const featureRequired = () =>
  new ServiceError(403, 'feature_required', 'The owner of this API key no longer has a plan that includes "api".')
const notAllowed = () =>
  new ServiceError(
    403,
    'api_key_not_allowed',
    'An API key opens only /api/download, /api/repo-access, reading your licenses, their seats and activations, and license validation.',
  )

/**
 * What a key opens (method and path under the API route): the customer endpoints. Every other
 * route, GraphQL and the admin get no user from a key, whatever the key.
 */
const KEY_ROUTES: readonly { method: string; path: RegExp }[] = [
  { method: 'GET', path: /^\/download$/ },
  { method: 'GET', path: /^\/repo-access$/ },
  { method: 'POST', path: /^\/repo-access$/ },
  { method: 'GET', path: /^\/licenses(\/\d+)?$/ },
  { method: 'POST', path: /^\/licenses\/validate$/ },
  // A team's seats and installations (the owner's automation; a member's key gets 403 not_license_owner).
  { method: 'GET', path: /^\/licenses\/\d+\/(seats|activations)$/ },
  { method: 'POST', path: /^\/licenses\/\d+\/seats$/ },
  { method: 'DELETE', path: /^\/licenses\/\d+\/(seats|activations)\/\d+$/ },
]

const opensRoute = (payload: Payload, req: PayloadRequest): boolean => {
  if (req.payloadAPI !== 'REST' || !req.pathname) return false
  const apiRoute = payload.config.routes.api
  if (!req.pathname.startsWith(`${apiRoute}/`)) return false
  const path = req.pathname.slice(apiRoute.length).replace(/\/+$/, '')
  const method = (req.method ?? 'GET').toUpperCase()
  return KEY_ROUTES.some((route) => route.method === method && route.path.test(path))
}

/** The key of `Authorization: Bearer kit_...`; null for no header or another scheme (Payload's JWT). */
const presentedKey = (headers: Headers): string | null => {
  const value = headers.get('authorization')
  if (!value?.startsWith('Bearer kit_')) return null
  return value.slice('Bearer '.length).trim()
}

/** One conditional UPDATE: concurrent requests of one key write it at most once a minute. */
const touch = async (payload: Payload, key: Pick<ApiKey, 'id' | 'lastUsedAt'>) => {
  if (key.lastUsedAt && Date.now() - new Date(key.lastUsedAt).getTime() < LAST_USED_INTERVAL_MS) return
  await executeOn(
    payload,
    undefined,
    sql`UPDATE ${api_keys} SET ${bare(api_keys.lastUsedAt)} = now()
        WHERE ${api_keys.id} = ${key.id} AND (${api_keys.lastUsedAt} IS NULL OR ${api_keys.lastUsedAt} < now() - make_interval(secs => ${LAST_USED_INTERVAL_MS / 1000}))`,
  )
}

type KeyRow = AccountRow &
  Pick<SqlRow<typeof api_keys>, 'revoked_at' | 'last_used_at'> & { key_id: number; entitlements: EntitlementRow[] }

/**
 * A key by its hash's unique index, with its owner (as readAccount reads the account) and the owner's
 * entitlements (ENTITLEMENTS' rows as a JSON array): a key's request pays one round trip for all three.
 */
const KEY_WITH_OWNER = statement<'hash', KeyRow>(
  (p) =>
    sql`SELECT ${api_keys.id} AS key_id, ${api_keys.revokedAt}, ${api_keys.lastUsedAt}, ${ACCOUNT_COLUMNS},
          (SELECT coalesce(json_agg(e), '[]'::json) FROM (${ENTITLEMENTS.build({ userId: sql`${users.id}` })}) AS e) AS entitlements
        FROM ${api_keys} JOIN ${users} ON ${users.id} = ${api_keys.user} WHERE ${api_keys.keyHash} = ${p.hash}`,
)

/**
 * `Authorization: Bearer <key>` as Payload's auth strategy on `users`: the key's owner, with a
 * customer's rights only, on the routes a key opens (KEY_ROUTES), while the owner holds `api`. A key
 * is found by its hash's unique index. A refused key leaves no user and records why in
 * `req.context` (401 `invalid_api_key`, 403 `feature_required`, 429 `rate_limited`, 403
 * `api_key_not_allowed`), which our endpoints and Payload's error hook answer with. Called without a
 * REST request (the admin, pages, GraphQL), a key opens nothing.
 */
const apiKeyStrategy: AuthStrategy = {
  name: API_KEY_STRATEGY,
  authenticate: async ({ headers, payload, req, strategyName }): Promise<AuthStrategyResult> => {
    const presented = presentedKey(headers)
    if (presented === null) return { user: null }
    const refuse = (refusal: ServiceError): AuthStrategyResult => {
      if (req) req.context[AUTH_REFUSAL] = refusal
      return { user: null }
    }
    if (!req || !opensRoute(payload, req)) return refuse(notAllowed())
    if (!KEY_PATTERN.test(presented)) return refuse(invalidKey())
    const [found] = await runOn(payload, undefined, KEY_WITH_OWNER, { hash: hashApiKey(presented) })
    if (!found || found.revoked_at !== null) return refuse(invalidKey())
    // With the request: the strategy's check below and the endpoint's own reuse them.
    keepEntitlements(req, found.id, Promise.resolve(entitlementsFromRows(found.entitlements)))
    const key = { id: found.key_id, lastUsedAt: isoTimestamp(found.last_used_at) }
    const owner = accountFromRow(found)
    try {
      await limiterOf(payload, 'api_key').consume(String(key.id))
    } catch (error) {
      const limited = asRateLimited(error, 'requests with this API key')
      if (limited instanceof ServiceError) return refuse(limited)
      throw limited
    }
    if (!(await canAccessFeature(payload, owner.id, 'api', req))) return refuse(featureRequired())
    await touch(payload, key)
    // A key reads rows, not what they point to: relationships stay ids.
    if (req.query) req.query.depth = '0'
    return { user: { ...owner, roles: ['customer'], collection: 'users', _strategy: strategyName ?? API_KEY_STRATEGY } }
  },
}

/** Whether the request was authenticated by an API key (the mark the strategy sets). */
const isApiKeyRequest = (req: Pick<PayloadRequest, 'user'>): boolean =>
  Boolean(req.user && (req.user as { _strategy?: unknown })._strategy === API_KEY_STRATEGY)

/** An access rule that refuses requests authenticated by an API key, whatever else would grant them. */
export const notByApiKey: Access = ({ req }) => !isApiKeyRequest(req)

/**
 * Payload's own routes: when a key was refused, the request ran anonymously; the access error that
 * follows answers with the key's refusal instead (runs after serviceErrorResponse).
 */
export const apiKeyRefusalResponse: AfterErrorHook = ({ error, req }) => {
  const refusal = req.context?.[AUTH_REFUSAL]
  if (
    !(refusal instanceof ServiceError) ||
    req.user ||
    !(error instanceof Forbidden || error instanceof UnauthorizedError)
  )
    return
  if (refusal.retryAfterSeconds !== undefined)
    req.responseHeaders = new Headers({ 'Retry-After': String(refusal.retryAfterSeconds) })
  return { response: errorBody(refusal.code, refusal.message), status: refusal.status }
}

/** A key refuses to manage keys: creating and revoking them takes a signed-in session. */
const requireSession = (req: PayloadRequest) => {
  if (isApiKeyRequest(req))
    throw new ServiceError(403, 'api_key_not_allowed', 'An API key cannot manage API keys: sign in.')
}

export type ApiKeyView = Pick<ApiKey, 'id' | 'name' | 'prefix' | 'createdAt' | 'lastUsedAt'>
export type CreatedApiKey = Pick<ApiKey, 'id' | 'name' | 'prefix'> & { key: string }

const liveKeysOf = (userId: number): Where => ({
  and: [{ user: { equals: userId } }, { revokedAt: { exists: false } }],
})

const view = (key: ApiKey): ApiKeyView => ({
  id: key.id,
  name: key.name,
  prefix: key.prefix,
  createdAt: key.createdAt,
  lastUsedAt: key.lastUsedAt ?? null,
})

/**
 * A new key for the user (who must hold `api`): at most MAX_LIVE_API_KEYS live ones, counted under
 * the user's lock so two requests cannot both take the last place. The key is returned once.
 */
export const createApiKey = async (req: PayloadRequest, user: User, name: string): Promise<CreatedApiKey> => {
  requireSession(req)
  if (!(await canAccessFeature(req.payload, user.id, 'api', req))) {
    throw new ServiceError(403, 'feature_required', 'API keys come with a plan that includes "api" (Ultimate or Pro).')
  }
  const created = await inTransaction(req.payload, async (tx) => {
    await lockKey(tx, `api_keys:${user.id}`)
    const { totalDocs } = await tx.payload.count({
      collection: 'api_keys',
      where: liveKeysOf(user.id),
      req: tx,
      overrideAccess: true,
    })
    if (totalDocs >= MAX_LIVE_API_KEYS) {
      throw new ServiceError(
        409,
        'api_key_limit_reached',
        `You have ${MAX_LIVE_API_KEYS} API keys: revoke one before creating another.`,
      )
    }
    const generated = generateApiKey()
    const row = await tx.payload.create({
      collection: 'api_keys',
      data: { name, prefix: generated.prefix, keyHash: generated.hash, user: user.id },
      req: tx,
      overrideAccess: true,
    })
    return { id: row.id, name: row.name, prefix: row.prefix, key: generated.key }
  })
  req.payload.logger.info(
    { event: 'api_key_created', user: user.id, apiKeyId: created.id, prefix: created.prefix },
    'API key created',
  )
  return created
}

/** The user's live keys, newest first: public fields only. */
export const listApiKeys = async (req: PayloadRequest, user: User): Promise<ApiKeyView[]> => {
  requireSession(req)
  const { docs } = await req.payload.find({
    collection: 'api_keys',
    where: liveKeysOf(user.id),
    sort: '-createdAt',
    limit: MAX_LIVE_API_KEYS,
    depth: 0,
    overrideAccess: true,
    req,
  })
  return docs.map(view)
}

/** Revoke one of the user's live keys; it stops working at once. Another user's key is "not found". */
export const revokeApiKey = async (req: PayloadRequest, user: User, id: number): Promise<void> => {
  requireSession(req)
  const { docs } = await req.payload.update({
    collection: 'api_keys',
    where: { and: [{ id: { equals: id } }, liveKeysOf(user.id)] },
    data: { revokedAt: new Date().toISOString() },
    depth: 0,
    overrideAccess: true,
    req,
  })
  if (docs.length === 0) throw new ServiceError(404, 'api_key_not_found', 'You have no API key with this id.')
  req.payload.logger.info({ event: 'api_key_revoked', user: user.id, apiKeyId: id }, 'API key revoked')
}

/** A deleted user's keys go with them, in the same transaction. */
const deleteKeysOfUser: CollectionBeforeDeleteHook = async ({ id, req }) => {
  await req.payload.delete({ collection: 'api_keys', where: { user: { equals: id } }, overrideAccess: true, req })
}

type UsersAccess = NonNullable<CollectionConfig['access']>

/**
 * The users collection with API keys: the key strategy before Payload's own JWT strategy (which stays
 * on), and the restriction on the user itself: a key's request neither reads nor changes any user,
 * nor opens the admin, whatever route it reaches.
 */
export const withApiKeys = (users: CollectionConfig): CollectionConfig => {
  const auth = typeof users.auth === 'object' ? users.auth : {}
  const access: UsersAccess = { ...users.access }
  for (const operation of ['create', 'read', 'update', 'delete', 'unlock'] as const) {
    const rule = access[operation]
    if (rule) access[operation] = and(notByApiKey, rule)
  }
  const admin = access.admin
  if (admin) access.admin = async (args) => !isApiKeyRequest(args.req) && (await admin(args))
  return {
    ...users,
    auth: { ...auth, strategies: [...(auth.strategies ?? []), apiKeyStrategy] },
    access,
    hooks: { ...users.hooks, beforeDelete: [...(users.hooks?.beforeDelete ?? []), deleteKeysOfUser] },
  }
}

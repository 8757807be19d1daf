import {
  type AuthStrategy,
  type AuthStrategyFunctionArgs,
  JWTAuthentication,
  type Payload,
  type PayloadRequest,
} from 'payload'

import type { SqlRow } from '../db/rows'
import { users, users_roles, users_sessions } from '../db/schema.generated'
import { executeOn, isoTimestamp as iso, sql } from '../db/transaction'
import type { User } from '../payload-types'

/**
 * The account as Payload's `findByID` on `users` gives it to authentication (overrideAccess, the
 * customer-view joins off, as `customerJoinsForStaffOnly` turns them off for every read without a
 * staff user): the row, its roles and its sessions, in one statement built once, not a relational
 * query Payload's adapter builds anew on every request. `account-read.test.ts` holds it equal to
 * Payload's own read, field for field, so a field added to `users` fails that test until it is here.
 */
export type AccountRow = Pick<
  SqlRow<typeof users>,
  | 'id'
  | 'name'
  | 'email'
  | 'email_verified'
  | 'pending_email'
  | 'password_set'
  | 'deletion_requested_at'
  | 'deletion_requested_by'
  | 'deletion_scheduled_for'
  | 'deletion_erased_at'
  | 'deletion_completed_at'
  | 'deletion_last_error'
  | 'processor_customer_id'
  | 'created_at'
  | 'updated_at'
> & {
  roles: string[] | null
  sessions: { id: string; createdAt: string | null; expiresAt: string }[] | null
}

/** The columns of `AccountRow`, for a statement that reads `users` (alone or joined). */
export const ACCOUNT_COLUMNS = sql`${users.id}, ${users.name}, ${users.email}, ${users.emailVerified}, ${users.pendingEmail},
  ${users.passwordSet}, ${users.deletion_requestedAt}, ${users.deletion_requestedBy}, ${users.deletion_scheduledFor},
  ${users.deletion_erasedAt}, ${users.deletion_completedAt}, ${users.deletion_lastError},
  ${users.processorCustomerId}, ${users.createdAt}, ${users.updatedAt},
  ARRAY(SELECT ${users_roles.value}::text FROM ${users_roles} WHERE ${users_roles.parent} = ${users.id} ORDER BY ${users_roles.order}) AS roles,
  (SELECT json_agg(json_build_object('id', ${users_sessions.id}, 'createdAt', ${users_sessions.createdAt}, 'expiresAt', ${users_sessions.expiresAt})
          ORDER BY ${users_sessions._order})
     FROM ${users_sessions} WHERE ${users_sessions._parentID} = ${users.id}) AS sessions`

/** A row of `ACCOUNT_COLUMNS` as the document Payload's read returns. */
export const accountFromRow = (row: AccountRow): User => ({
  id: row.id,
  name: row.name,
  email: row.email,
  roles: (row.roles ?? []) as User['roles'],
  emailVerified: row.email_verified,
  pendingEmail: row.pending_email,
  passwordSet: row.password_set,
  deletion: {
    requestedAt: iso(row.deletion_requested_at),
    requestedBy: row.deletion_requested_by,
    scheduledFor: iso(row.deletion_scheduled_for),
    erasedAt: iso(row.deletion_erased_at),
    completedAt: iso(row.deletion_completed_at),
    lastError: row.deletion_last_error,
  },
  processorCustomerId: row.processor_customer_id,
  createdAt: iso(row.created_at)!,
  updatedAt: iso(row.updated_at)!,
  sessions: (row.sessions ?? []).map((session) => ({
    id: session.id,
    createdAt: iso(session.createdAt),
    expiresAt: iso(session.expiresAt)!,
  })),
  collection: 'users',
})

/** The account by id, in one statement (null when there is none); on `req`'s transaction when it has one. */
export const readAccount = async (
  payload: Payload,
  id: number | string,
  req?: PayloadRequest,
): Promise<User | null> => {
  const numeric = typeof id === 'number' ? id : /^\d{1,15}$/.test(id) ? Number(id) : null
  if (numeric === null) return null
  const rows = await executeOn<AccountRow>(
    payload,
    req,
    sql`SELECT ${ACCOUNT_COLUMNS} FROM ${users} WHERE ${users.id} = ${numeric}`,
  )
  return rows[0] ? accountFromRow(rows[0]) : null
}

/** What the hot paths' JWT check asks of the Local API: the same read, with `users` read by `readAccount`. */
const withAccountRead = (() => {
  const views = new WeakMap<Payload, Payload>()
  return (payload: Payload): Payload => {
    let view = views.get(payload)
    if (!view) {
      const findByID = ((args: Parameters<Payload['findByID']>[0]) =>
        args.collection === 'users' && !args.disableErrors
          ? readAccount(payload, args.id, args.req as PayloadRequest | undefined)
          : payload.findByID(args)) as Payload['findByID']
      view = Object.create(payload, { findByID: { value: findByID } }) as Payload
      views.set(payload, view)
    }
    return view
  }
})()

// PATCH: hot-path-jwt
/**
 * Payload's own JWT strategy (`JWTAuthentication`: the token from the same places with the same CSRF
 * rule, the same signature, header and session checks, `_strategy` 'local-jwt') on the hot paths
 * (`paths`, method and path under the API route), with the account read by `readAccount`. It runs
 * before Payload's strategies; anywhere else, or when it finds no user, it says nothing and
 * Payload's strategy decides as always.
 */
export const hotPathJwtStrategy = (paths: readonly { method: string; path: string }[]): AuthStrategy => ({
  name: 'hot-path-jwt',
  authenticate: (args: AuthStrategyFunctionArgs) => {
    const { req } = args
    if (!req || req.payloadAPI !== 'REST' || !req.pathname) return Promise.resolve({ user: null })
    const method = (req.method ?? 'GET').toUpperCase()
    const pathname = req.pathname.replace(/\/+$/, '')
    if (!paths.some((route) => route.method === method && route.path === pathname))
      return Promise.resolve({ user: null })
    return JWTAuthentication({ ...args, payload: withAccountRead(args.payload), strategyName: 'local-jwt' })
  },
})

import type { Payload, PayloadRequest } from 'payload'

import { num, type SqlRow } from '../db/rows'
import { community_grants, discord_links, payload_kv, plans, users } from '../db/schema.generated'
import { bare, execute, executeOn, inTransaction, sql } from '../db/transaction'
import { entitlementsOf } from '../licensing/entitlements'
import { emitWebhookEvent } from '../webhooks/emit'
import { type Discord, type DiscordFailure, discordFailure } from './discord'
import type { GrantState } from './grant-states'
import { queueEmailToAdmins } from '../email/send-task'
import { roleRefusedEmail } from './emails'

/**
 * The one place Discord roles are given and taken back (docs/COMMUNITY.md). For one customer, it makes
 * Discord match what their licenses entitle them to now:
 * - the roles wanted are those of the plans of their usable licenses, their own and those of a claimed
 *   seat (`plans.discordRoleId`), on the Discord account linked now (none once disconnected);
 * - every role the service gave (a `community_grants` row) that is no longer wanted, or that sits on an
 *   account no longer linked, is taken off (a member or role Discord no longer knows counts as done);
 * - every wanted role not given yet is given.
 * With `check`, it also reads the member from Discord: a wanted role removed there by hand comes back, a
 * role some plan grants that the member holds without being entitled to it goes, and a member who left the
 * server has their roles marked failed (`not_in_guild`: they connect again).
 *
 * One sync per customer at a time, across processes: it holds a lease on the customer's link row (a
 * column, not a transaction: no database connection is held while Discord answers), so two instances
 * never both remove a role. A sync that finds the lease taken leaves a request on the row (a counter)
 * and returns; the holder gives the lease back only if no request came meanwhile, and otherwise runs
 * again, so the change that asked is always seen by a sync that starts after it. Each call to Discord is
 * followed by its own short transaction that records the outcome and queues the outbound event
 * (`community.granted`, `community.revoked`).
 */

/** A sync that dies leaves its lease: another may take over after this long. */
const LEASE_MS = 2 * 60_000

export type CommunityDeps = {
  discord: () => Discord
  kickOnRevoke: boolean
  productName: string
  serverUrl: string
}

export type GrantView = { roleId: string; state: GrantState; discordUserId: string; lastError: string | null }

export type SyncOutcome = {
  /**
   * `none`: the customer never connected Discord; `synced`: Discord matches their entitlements;
   * `deferred`: another process was syncing them, and runs again for this request before it lets go.
   */
  outcome: 'none' | 'synced' | 'deferred'
  granted: string[]
  revoked: string[]
  failed: string[]
}

type GrantRow = Pick<
  SqlRow<typeof community_grants>,
  'id' | 'discord_user_id' | 'role_id' | 'state' | 'granted_at' | 'last_error'
>

type Lease = { id: number; requests: number }

/**
 * Take the customer's lease: the link row and its request count, null when they never connected, or
 * `deferred` when another sync holds it (the request is left for that one).
 */
const takeLease = async (payload: Payload, userId: number, check: boolean): Promise<Lease | null | 'deferred'> => {
  const until = new Date(Date.now() + LEASE_MS).toISOString()
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const [taken] = await executeOn<Pick<SqlRow<typeof discord_links>, 'id' | 'sync_requests'>>(
      payload,
      undefined,
      sql`UPDATE ${discord_links} SET ${bare(discord_links.syncLeaseUntil)} = ${until}::timestamptz
          WHERE ${discord_links.user} = ${userId} AND (${discord_links.syncLeaseUntil} IS NULL OR ${discord_links.syncLeaseUntil} < now())
          RETURNING ${discord_links.id}, ${discord_links.syncRequests}`,
    )
    if (taken) return { id: Number(taken.id), requests: Number(taken.sync_requests ?? 0) }
    // Held: leave a request for the holder, which looks for one before it lets go.
    const [left] = await executeOn(
      payload,
      undefined,
      sql`UPDATE ${discord_links} SET ${bare(discord_links.syncRequests)} = COALESCE(${discord_links.syncRequests}, 0) + 1,
            ${bare(discord_links.syncCheckRequested)} = ${discord_links.syncCheckRequested} OR ${check}
          WHERE ${discord_links.user} = ${userId} AND ${discord_links.syncLeaseUntil} >= now()
          RETURNING ${discord_links.id}`,
    )
    if (left) return 'deferred'
    const [exists] = await executeOn(
      payload,
      undefined,
      sql`SELECT 1 FROM ${discord_links} WHERE ${discord_links.user} = ${userId}`,
    )
    if (!exists) return null
    // Let go between the two statements: take it now.
  }
  throw new Error(`the community lease of user ${userId} kept changing hands`)
}

/**
 * Give the lease back if no request came since `requests`; otherwise keep it (for two more minutes)
 * and answer the requests now pending, with whether one of them asked for a check.
 */
const releaseLease = async (
  payload: Payload,
  lease: Lease,
  synced: boolean,
): Promise<{ released: true } | { released: false; requests: number; check: boolean }> => {
  if (!synced) {
    await executeOn(
      payload,
      undefined,
      sql`UPDATE ${discord_links} SET ${bare(discord_links.syncLeaseUntil)} = NULL WHERE ${discord_links.id} = ${lease.id}`,
    )
    return { released: true }
  }
  const [released] = await executeOn(
    payload,
    undefined,
    sql`UPDATE ${discord_links} SET ${bare(discord_links.syncLeaseUntil)} = NULL, ${bare(discord_links.syncCheckRequested)} = false,
          ${bare(discord_links.lastSyncedAt)} = now(), ${bare(discord_links.syncQueuedAt)} = NULL, ${bare(discord_links.updatedAt)} = now()
        WHERE ${discord_links.id} = ${lease.id} AND COALESCE(${discord_links.syncRequests}, 0) = ${lease.requests}
        RETURNING ${discord_links.id}`,
  )
  if (released) return { released: true }
  // Requests came while this pass ran: keep the lease (two more minutes) and answer them, reading and
  // clearing whether one asked for a check in one statement.
  const until = new Date(Date.now() + LEASE_MS).toISOString()
  const [pending] = await executeOn<{ requests: number | string | null; check: boolean | null }>(
    payload,
    undefined,
    sql`WITH before AS (
          SELECT ${discord_links.syncCheckRequested} AS check_requested FROM ${discord_links} WHERE ${discord_links.id} = ${lease.id} FOR UPDATE)
        UPDATE ${discord_links} SET ${bare(discord_links.syncLeaseUntil)} = ${until}::timestamptz, ${bare(discord_links.syncCheckRequested)} = false
        FROM before WHERE ${discord_links.id} = ${lease.id}
        RETURNING ${discord_links.syncRequests} AS requests, before.check_requested AS check`,
  )
  return { released: false, requests: Number(pending?.requests ?? 0), check: pending?.check === true }
}

/** The Discord roles the customer's usable licenses (own and claimed seats) entitle them to. */
export const entitledRoles = async (payload: Payload, userId: number): Promise<string[]> => {
  const { licenses } = await entitlementsOf(payload, userId)
  const planIds = [...new Set(licenses.map((license) => license.plan.id))]
  if (planIds.length === 0) return []
  const rows = await executeOn<Pick<SqlRow<typeof plans>, 'discord_role_id'>>(
    payload,
    undefined,
    sql`SELECT DISTINCT ${plans.discordRoleId} FROM ${plans}
        WHERE ${plans.id} IN (${sql.join(
          planIds.map((id) => sql`${id}`),
          sql`, `,
        )}) AND ${plans.discordRoleId} IS NOT NULL AND ${plans.discordRoleId} <> ''`,
  )
  return rows.map((row) => row.discord_role_id!).sort()
}

/** Every role some plan gives: the only roles the service ever takes off a member it did not give them to. */
const planRoles = async (payload: Payload): Promise<Set<string>> => {
  const rows = await executeOn<Pick<SqlRow<typeof plans>, 'discord_role_id'>>(
    payload,
    undefined,
    sql`SELECT DISTINCT ${plans.discordRoleId} FROM ${plans} WHERE ${plans.discordRoleId} IS NOT NULL AND ${plans.discordRoleId} <> ''`,
  )
  return new Set(rows.map((row) => row.discord_role_id!))
}

const grantsOf = (payload: Payload, userId: number) =>
  executeOn<GrantRow>(
    payload,
    undefined,
    sql`SELECT ${community_grants.id}, ${community_grants.discordUserId}, ${community_grants.roleId}, ${community_grants.state},
          ${community_grants.grantedAt}, ${community_grants.lastError}
        FROM ${community_grants} WHERE ${community_grants.user} = ${userId} ORDER BY ${community_grants.id}`,
  )

/** The customer as outbound events name them. */
const customerOf = async (req: PayloadRequest, userId: number) => {
  const [row] = await execute<Pick<SqlRow<typeof users>, 'email'>>(
    req,
    sql`SELECT ${users.email} FROM ${users} WHERE ${users.id} = ${userId}`,
  )
  return { id: userId, email: row?.email ?? null }
}

type RevokeReason = 'entitlement_ended' | 'disconnected' | 'relinked'

const recordGranted = (
  payload: Payload,
  userId: number,
  grant: { id: number; discordUserId: string; roleId: string },
) =>
  inTransaction(payload, async (tx) => {
    const [changed] = await execute<{ granted_at: string | Date }>(
      tx,
      sql`UPDATE ${community_grants} SET ${bare(community_grants.state)} = 'granted', ${bare(community_grants.grantedAt)} = now(),
            ${bare(community_grants.lastError)} = NULL, ${bare(community_grants.lastAttemptAt)} = now(), ${bare(community_grants.updatedAt)} = now()
          WHERE ${community_grants.id} = ${grant.id} AND ${community_grants.state} <> 'granted'
          RETURNING ${community_grants.grantedAt} AS granted_at`,
    )
    if (!changed) {
      await execute(
        tx,
        sql`UPDATE ${community_grants} SET ${bare(community_grants.lastError)} = NULL, ${bare(community_grants.lastAttemptAt)} = now()
            WHERE ${community_grants.id} = ${grant.id}`,
      )
      return
    }
    // A role that works again may warn the admins again the next time Discord refuses it.
    await execute(tx, sql`DELETE FROM ${payload_kv} WHERE ${payload_kv.key} = ${refusalKey(grant.roleId)}`)
    const grantedAt = new Date(changed.granted_at).toISOString()
    await emitWebhookEvent(tx, {
      type: 'community.granted',
      sourceKey: `community.granted:${grant.id}:${grantedAt}`,
      data: async () => ({
        customer: await customerOf(tx, userId),
        discordUserId: grant.discordUserId,
        roleId: grant.roleId,
        grantedAt,
      }),
    })
  })

const recordRevoked = (payload: Payload, userId: number, grant: GrantRow, reason: RevokeReason) =>
  inTransaction(payload, async (tx) => {
    const [gone] = await execute(
      tx,
      sql`DELETE FROM ${community_grants} WHERE ${community_grants.id} = ${grant.id} RETURNING ${community_grants.id}`,
    )
    if (!gone || grant.state !== 'granted') return
    await emitWebhookEvent(tx, {
      type: 'community.revoked',
      sourceKey: `community.revoked:${grant.id}`,
      data: async () => ({
        customer: await customerOf(tx, userId),
        discordUserId: grant.discord_user_id,
        roleId: grant.role_id,
        reason,
      }),
    })
  })

const recordFailure = (payload: Payload, grantId: number, state: GrantState, error: string) =>
  executeOn(
    payload,
    undefined,
    sql`UPDATE ${community_grants} SET ${bare(community_grants.state)} = ${state}, ${bare(community_grants.lastError)} = ${error},
          ${bare(community_grants.lastAttemptAt)} = now(), ${bare(community_grants.updatedAt)} = now()
        WHERE ${community_grants.id} = ${grantId}`,
  )

/** The grant row for a role on an account, made `pending` when there is none. */
const pendingGrant = async (payload: Payload, userId: number, discordUserId: string, roleId: string) => {
  const [row] = await executeOn<{ id: number }>(
    payload,
    undefined,
    sql`INSERT INTO ${community_grants} (${bare(community_grants.user, community_grants.discordUserId, community_grants.roleId, community_grants.state)})
        VALUES (${userId}, ${discordUserId}, ${roleId}, 'pending')
        ON CONFLICT (${bare(community_grants.user, community_grants.discordUserId, community_grants.roleId)})
          DO UPDATE SET ${bare(community_grants.lastAttemptAt)} = now()
        RETURNING ${community_grants.id}`,
  )
  return Number(row!.id)
}

const refusalKey = (roleId: string) => `community:role-refused:${roleId}`

/**
 * Discord refused a plan's role for a reason only staff can fix (the role above the bot's, or gone): the
 * admins hear of it once per role, until a grant of that role works again.
 */
const warnAdminsOnce = async (payload: Payload, deps: CommunityDeps, roleId: string, failure: DiscordFailure) => {
  // The mark and the emails in one transaction: a failure to queue them leaves no mark, and the next refusal tries again.
  const warned = await inTransaction(payload, async (tx) => {
    const [first] = await execute(
      tx,
      sql`INSERT INTO ${payload_kv} (${bare(payload_kv.key, payload_kv.data)})
          VALUES (${refusalKey(roleId)}, ${JSON.stringify({ kind: failure.kind, at: new Date().toISOString() })}::jsonb)
          ON CONFLICT (${bare(payload_kv.key)}) DO NOTHING RETURNING ${payload_kv.id}`,
    )
    if (!first) return false
    await queueEmailToAdmins(tx, roleRefusedEmail(deps.productName, deps.serverUrl, roleId, failure.kind))
    return true
  })
  if (warned)
    payload.logger.warn({ msg: 'community: Discord refused a plan role; admins emailed', roleId, kind: failure.kind })
}

/** What is failed and why, in the words of the grant's `lastError`. */
const failureCode = (failure: DiscordFailure) => (failure.kind === 'unknown_member' ? 'not_in_guild' : failure.kind)

/**
 * Make Discord match the customer's entitlements (see the top of this file). Throws a DiscordFailure when
 * Discord is unavailable or rate limits (the job comes back; what was done is recorded).
 */
export const syncCommunityRoles = async (
  payload: Payload,
  deps: CommunityDeps,
  userId: number,
  options: { check?: boolean } = {},
): Promise<SyncOutcome> => {
  const result: SyncOutcome = { outcome: 'none', granted: [], revoked: [], failed: [] }
  const lease = await takeLease(payload, userId, options.check === true)
  if (lease === null) return result
  if (lease === 'deferred') return { ...result, outcome: 'deferred' }
  result.outcome = 'synced'
  let check = options.check === true
  for (;;) {
    try {
      await syncPass(payload, deps, userId, check, result)
    } catch (error) {
      // The job comes back; the requests left meanwhile stay on the row for whichever sync runs next.
      await releaseLease(payload, lease, false)
      throw error
    }
    const after = await releaseLease(payload, lease, true)
    if (after.released) return result
    lease.requests = after.requests
    check = after.check
  }
}

/** One pass of the sync, under the lease: adds to `result`. */
const syncPass = async (
  payload: Payload,
  deps: CommunityDeps,
  userId: number,
  check: boolean,
  result: SyncOutcome,
): Promise<void> => {
  const [link] = await executeOn<Pick<SqlRow<typeof discord_links>, 'discord_user_id'>>(
    payload,
    undefined,
    sql`SELECT ${discord_links.discordUserId} FROM ${discord_links} WHERE ${discord_links.user} = ${userId}`,
  )
  {
    const linked = link?.discord_user_id ?? null
    const discord = deps.discord()
    const wanted = linked ? await entitledRoles(payload, userId) : []
    const grants = await grantsOf(payload, userId)
    const reason = 'Plan role, by the licensing service'

    // Taken back first: a role no longer wanted, or on an account no longer linked (a disconnect, another account).
    const revokedFrom = new Set<string>()
    for (const grant of grants) {
      const onLinked = grant.discord_user_id === linked
      if (onLinked && wanted.includes(grant.role_id)) continue
      if (grant.state !== 'failed') {
        try {
          await discord.removeRole(grant.discord_user_id, grant.role_id, reason)
        } catch (error) {
          const failure = discordFailure(error)
          // Not in the server any more, or the role is gone: nothing left to take back.
          if (failure.kind !== 'unknown_member' && failure.kind !== 'unknown_role') {
            if (failure.kind === 'missing_permissions') {
              await recordFailure(payload, Number(grant.id), 'granted', failureCode(failure))
              await warnAdminsOnce(payload, deps, grant.role_id, failure)
              result.failed.push(grant.role_id)
              continue
            }
            throw failure
          }
        }
      }
      await recordRevoked(
        payload,
        userId,
        grant,
        onLinked ? 'entitlement_ended' : linked === null ? 'disconnected' : 'relinked',
      )
      revokedFrom.add(grant.discord_user_id)
      if (grant.state === 'granted') result.revoked.push(grant.role_id)
    }

    let member: string[] | null = null
    if (linked && check) {
      member = await discord.rolesOf(linked)
      if (member !== null) {
        // A role some plan grants, held without entitlement (given by hand, or by a plan since edited).
        for (const role of await planRoles(payload)) {
          if (!member.includes(role) || wanted.includes(role)) continue
          try {
            await discord.removeRole(linked, role, reason)
            result.revoked.push(role)
          } catch (error) {
            const failure = discordFailure(error)
            if (failure.kind !== 'unknown_member' && failure.kind !== 'unknown_role') throw failure
          }
        }
      }
    }

    if (linked) {
      const current = new Map(
        grants.filter((grant) => grant.discord_user_id === linked).map((grant) => [grant.role_id, grant]),
      )
      for (const role of wanted) {
        const existing = current.get(role)
        // Checked and not in the server (they left): nothing can be given until they connect again.
        if (check && member === null) {
          const grantId = existing ? Number(existing.id) : await pendingGrant(payload, userId, linked, role)
          await recordFailure(payload, grantId, 'failed', 'not_in_guild')
          result.failed.push(role)
          continue
        }
        const missing = member !== null && !member.includes(role)
        if (existing?.state === 'granted' && !missing) continue
        const grantId = existing ? Number(existing.id) : await pendingGrant(payload, userId, linked, role)
        try {
          await discord.addRole(linked, role, reason)
        } catch (error) {
          const failure = discordFailure(error)
          if (failure.kind === 'rate_limited' || failure.kind === 'unavailable' || failure.kind === 'unauthorized')
            throw failure
          await recordFailure(payload, grantId, 'failed', failureCode(failure))
          if (failure.kind === 'missing_permissions' || failure.kind === 'unknown_role')
            await warnAdminsOnce(payload, deps, role, failure)
          result.failed.push(role)
          continue
        }
        await recordGranted(payload, userId, { id: grantId, discordUserId: linked, roleId: role })
        result.granted.push(role)
      }
    }

    // DISCORD_KICK_ON_REVOKE: an account left with none of the roles it was given leaves the server.
    if (deps.kickOnRevoke) {
      for (const account of revokedFrom) {
        if (account === linked && wanted.length > 0) continue
        await discord.kick(account, 'No longer holds a plan with community access').catch((error: unknown) => {
          const failure = discordFailure(error)
          if (failure.kind !== 'unknown_member') throw failure
        })
      }
    }
  }
}

/** The customer's grants as staff and the dashboard show them. */
export const grantsView = async (payload: Payload, userId: number): Promise<GrantView[]> =>
  (await grantsOf(payload, userId)).map((grant) => ({
    roleId: grant.role_id,
    state: grant.state,
    discordUserId: grant.discord_user_id,
    lastError: grant.last_error ?? null,
  }))

/** The link row's id and Discord account, or null. */
export const linkOf = async (payload: Payload, userId: number) => {
  const [row] = await executeOn<
    Pick<SqlRow<typeof discord_links>, 'id' | 'discord_user_id' | 'discord_username' | 'linked_at' | 'last_synced_at'>
  >(
    payload,
    undefined,
    sql`SELECT ${discord_links.id}, ${discord_links.discordUserId}, ${discord_links.discordUsername}, ${discord_links.linkedAt}, ${discord_links.lastSyncedAt}
        FROM ${discord_links} WHERE ${discord_links.user} = ${userId}`,
  )
  return row ? { ...row, id: num(row.id)! } : null
}

/** What the dashboard shows: whether a license gives a role, the account connected now, and its roles. */
export const communityViewOf = async (payload: Payload, userId: number) => {
  const [roles, link, grants] = await Promise.all([
    entitledRoles(payload, userId),
    linkOf(payload, userId),
    grantsView(payload, userId),
  ])
  const linked = link?.discord_user_id ?? null
  return {
    entitled: roles.length > 0,
    link: linked
      ? {
          username: link?.discord_username ?? null,
          linkedAt: link?.linked_at ? new Date(link.linked_at).toISOString() : null,
        }
      : null,
    roles: grants
      .filter((grant) => grant.discordUserId === linked)
      .map((grant) => ({ state: grant.state, lastError: grant.lastError })),
  }
}

import { createLocalReq, type Payload, type PayloadRequest } from 'payload'

import { relationId } from '../db/relations'
import type { SqlRow } from '../db/rows'
import { repo_access, repo_usernames } from '../db/schema.generated'
import { bare, execute, inTransaction, lockKey, sql } from '../db/transaction'
import { requireAccount } from '../http/account'
import { ServiceError } from '../http/errors'
import { entitlementsOf } from '../licensing/entitlements'
import type { RepoAccess, User } from '../payload-types'
import { inStaffTransaction, recordAudit } from '../staff/audit'
import { type CodeHost, codeHostFailure, USERNAME_PATTERN } from './code-host'
import { openCodeHostBudget } from './code-host-budget'
import { countUsernameChange, refundUsernameChange } from './username-limit'

/** Plans whose license opens the kit's repository: the top, lifetime plan. */
const REPO_ACCESS_PLANS = ['ultimate']

/**
 * GET, and asking again for the username one holds, refresh from the code host at most this often per
 * user: soon enough for a customer back from accepting, rare enough for the code host's rate limit.
 */
const REFRESH_INTERVAL_MS = 10_000

/** A claim whose request never wrote its row (the process died in between) gives way after this. */
const ABANDONED_CLAIM_MS = 10 * 60_000

export type RepoAccessStatus = {
  status: 'none' | 'pending' | 'collaborator' | 'revoked' | 'failed'
  username: string | null
}

export type CodeHostProvider = () => CodeHost

/*
 * The repository rule: the service touches the private repository only where it made the access itself.
 *
 * - It invites a username only when the code host says it is not a collaborator (a maintainer, a
 *   member, the owner) and holds no invitation from anyone else; otherwise 409 `username_has_access`,
 *   with nothing stored, no claim kept and the day's new-username point given back. An invitation
 *   answered 204 all the same (it became a collaborator meanwhile) is refused the same way: a 204 is
 *   never recorded as the customer's collaborator.
 * - It records on the row the invitation the code host created for it (`serviceInvitation`: username,
 *   invitation id, when), and removes (invitation and collaborator role) only a username whose row
 *   records that invitation: replacing the username, the withdrawal job (refund, revoke, expiry),
 *   staff's resend and the refresh of an expired invitation all check it. Anything else is only
 *   forgotten here. Rows written before the record existed (`collaborator` or `pending` with no record)
 *   are never removed on the code host: nothing tells the customer's username from a maintainer's
 *   there. A warning line names each one left, for staff to check by hand.
 * - Asking again for the username one holds sends nothing while the service's invitation stands or
 *   was accepted: it refreshes the state (at most every REFRESH_INTERVAL_MS). Only an expired or
 *   vanished invitation gets a new one, which counts like a new username.
 * - Every code-host call made for a customer's request counts against the account's budget
 *   (`code_host_calls:user` in RATE_LIMITS); past it, 429 before any call.
 *
 * No code-host call is made while a transaction or a lock is open: a slow code host must not hold
 * database connections or block the user's other requests. The order is always: claim the username
 * (a row in `repo_usernames`, unique on the lower-cased name), ask the code host, then lock, re-read
 * and write; when the write cannot happen, what the code host was asked is undone.
 */

export const hasRepoAccessPlan = async (req: PayloadRequest, userId: number): Promise<boolean> => {
  const { licenses } = await entitlementsOf(req.payload, userId, req)
  return licenses.some((license) => REPO_ACCESS_PLANS.includes(license.plan.slug))
}

const requirePlan = async (req: PayloadRequest, user: User) => {
  if (!(await hasRepoAccessPlan(req, user.id))) {
    throw new ServiceError(403, 'plan_required', 'Repository access comes with the Ultimate license.')
  }
}

const rowOf = async (req: PayloadRequest, userId: number): Promise<RepoAccess | null> =>
  (
    await req.payload.find({
      collection: 'repo_access',
      where: { user: { equals: userId } },
      limit: 1,
      depth: 0,
      req,
      overrideAccess: true,
    })
  ).docs[0] ?? null

const view = (row: RepoAccess | null): RepoAccessStatus => ({
  status: row?.status ?? 'none',
  username: row?.username ?? null,
})

const keyOf = (username: string) => username.toLowerCase()

/** A row that is not revoked holds its username on the code host (and its claim). */
const holds = (row: RepoAccess | null, key?: string): row is RepoAccess =>
  row !== null && row.status !== 'revoked' && (key === undefined || keyOf(row.username) === key)

const usernameTaken = () =>
  new ServiceError(409, 'username_taken', 'That username already has access through another account.')

/** A request of its own, outside any transaction. */
const plainReq = (payload: Payload) => createLocalReq({}, payload)

/** Who holds a `repo_usernames` claim, and since when it is being removed. */
type UsernameHolder = Pick<SqlRow<typeof repo_usernames>, 'user_id' | 'removing_since'>

/** The code host's failure on the row, unless its username changed meanwhile. */
const recordFailure = (row: RepoAccess, code: string) =>
  sql`UPDATE ${repo_access} SET ${bare(repo_access.lastError)} = ${code} WHERE ${repo_access.id} = ${row.id} AND ${repo_access.username} = ${row.username}`

/** Of a `repo_usernames` row: no access row of its user holds its username (none that is not revoked). */
const NO_ACCESS_HOLDS_CLAIM = sql`NOT EXISTS (SELECT 1 FROM ${repo_access}
  WHERE ${repo_access.user} = ${repo_usernames.user} AND lower(${repo_access.username}) = ${repo_usernames.usernameKey} AND ${repo_access.status} <> 'revoked')`

/**
 * Claim `key` for the user before the code host is asked: `claimed` when this call took it, `held`
 * when the user held it already; 409 `username_taken` when another account holds it.
 */
const claimUsername = async (payload: Payload, userId: number, key: string): Promise<'claimed' | 'held'> => {
  const req = await plainReq(payload)
  for (let attempt = 0; attempt < 2; attempt += 1) {
    const inserted = await execute(
      req,
      sql`INSERT INTO ${repo_usernames} (${bare(repo_usernames.usernameKey, repo_usernames.user)}) VALUES (${key}, ${userId})
          ON CONFLICT (${bare(repo_usernames.usernameKey)}) DO NOTHING RETURNING ${repo_usernames.id}`,
    )
    if (inserted.length > 0) return 'claimed'
    const [holder] = await execute<UsernameHolder>(
      req,
      sql`SELECT ${repo_usernames.user}, ${repo_usernames.removingSince} FROM ${repo_usernames} WHERE ${repo_usernames.usernameKey} = ${key}`,
    )
    if (holder && Number(holder.user_id) === userId) {
      if (removalUnderWay(holder.removing_since)) throw beingRemoved()
      return 'held'
    }
    if (holder) {
      const cutoff = new Date(Date.now() - ABANDONED_CLAIM_MS).toISOString()
      await execute(
        req,
        sql`DELETE FROM ${repo_usernames} WHERE ${repo_usernames.usernameKey} = ${key} AND ${repo_usernames.createdAt} < ${cutoff}::timestamptz
          AND ${NO_ACCESS_HOLDS_CLAIM}`,
      )
    }
  }
  throw usernameTaken()
}

const beingRemoved = () =>
  new ServiceError(
    409,
    'username_being_removed',
    'That username is being taken off the repository right now. Try again in a minute.',
  )

/** Whether a removal of the username (releaseReplaced) is under way and not abandoned. */
const removalUnderWay = (removingSince: string | Date | null | undefined) =>
  removingSince !== null &&
  removingSince !== undefined &&
  Date.now() - new Date(removingSince).getTime() < ABANDONED_CLAIM_MS

/**
 * Inside the write's transaction: the user must still hold the claim (taking it again if it was given
 * back meanwhile), and no removal of that username may be under way: a row written now could say
 * `collaborator` about a username the code host is about to drop.
 */
const holdClaim = async (tx: PayloadRequest, userId: number, key: string): Promise<void> => {
  await execute(
    tx,
    sql`INSERT INTO ${repo_usernames} (${bare(repo_usernames.usernameKey, repo_usernames.user)}) VALUES (${key}, ${userId})
        ON CONFLICT (${bare(repo_usernames.usernameKey)}) DO NOTHING`,
  )
  const [holder] = await execute<UsernameHolder>(
    tx,
    sql`SELECT ${repo_usernames.user}, ${repo_usernames.removingSince} FROM ${repo_usernames} WHERE ${repo_usernames.usernameKey} = ${key} FOR UPDATE`,
  )
  if (!holder || Number(holder.user_id) !== userId) throw usernameTaken()
  if (removalUnderWay(holder.removing_since)) throw beingRemoved()
}

/** Give a claim back, unless the user's row holds that username again. */
const releaseUsername = async (req: PayloadRequest, userId: number, key: string): Promise<void> => {
  await execute(
    req,
    sql`DELETE FROM ${repo_usernames} WHERE ${repo_usernames.usernameKey} = ${key} AND ${repo_usernames.user} = ${userId} AND ${NO_ACCESS_HOLDS_CLAIM}`,
  )
}

const holdsClaim = async (payload: Payload, userId: number, key: string): Promise<boolean> =>
  (
    await execute(
      await plainReq(payload),
      sql`SELECT 1 FROM ${repo_usernames} WHERE ${repo_usernames.usernameKey} = ${key} AND ${repo_usernames.user} = ${userId}`,
    )
  ).length > 0

/** The invitation this service sent, as a row records it. */
type ServiceInvitation = { username: string; invitationId: number }

/**
 * The invitation this service sent for the row's username (or for `username`), as the row records it;
 * null when it records none for that username: then that access is not the service's to remove.
 */
const serviceInvitationOf = (row: RepoAccess | null, username?: string): ServiceInvitation | null => {
  const sent = row?.serviceInvitation
  if (!row || !sent?.username || typeof sent.invitationId !== 'number') return null
  if (keyOf(sent.username) !== keyOf(username ?? row.username)) return null
  return { username: sent.username, invitationId: sent.invitationId }
}

/** Under the row's lock: whether it is still the row read before the code host was asked (else re-read instead of writing over it). */
const unchangedSince = (current: RepoAccess | null, row: RepoAccess): boolean =>
  current?.id === row.id &&
  current.username === row.username &&
  current.status === row.status &&
  (current.invitationId ?? null) === (row.invitationId ?? null) &&
  (current.serviceInvitation?.invitationId ?? null) === (row.serviceInvitation?.invitationId ?? null)

const recordOf = (username: string, invitationId: number, sentAt: string) => ({
  serviceInvitation: { username, invitationId, sentAt },
})
const NO_RECORD = { serviceInvitation: { username: null, invitationId: null, sentAt: null } }

/** What to withdraw with the collaborator role of a username the service invited: its invitation, unless accepted. */
const withdrawableId = (row: RepoAccess, mine: ServiceInvitation): number | null =>
  row.status === 'collaborator' ? null : mine.invitationId

const usernameHasAccess = () =>
  new ServiceError(
    409,
    'username_has_access',
    'That username already has access to the repository, or an invitation to it, that this service did not send: nothing was sent or stored.',
  )

/** A username the service has no record of inviting stays on the code host; staff look at it by hand. */
const leftOnCodeHost = (payload: Payload, userId: number, username: string, why: string) => {
  payload.logger.warn({
    msg: 'repository access: left on the code host, as this service has no record of inviting this username; check the repository by hand',
    userId,
    username,
    why,
  })
}

type Replaced = { username: string; invitationId: number | null; serviceInvited: boolean }

const recentlyChecked = (row: RepoAccess, now: Date) =>
  Boolean(row.lastCheckedAt) && now.getTime() - new Date(row.lastCheckedAt!).getTime() < REFRESH_INTERVAL_MS

/** Of concurrent refreshes of one row, the one that moves lastCheckedAt asks the code host; the others answer the stored state. */
const takeTurn = async (payload: Payload, row: RepoAccess, now: Date): Promise<boolean> => {
  const checkedAt = now.toISOString()
  const cutoff = new Date(now.getTime() - REFRESH_INTERVAL_MS).toISOString()
  const turn = await execute(
    await plainReq(payload),
    sql`UPDATE ${repo_access} SET ${bare(repo_access.lastCheckedAt)} = ${checkedAt}::timestamptz
      WHERE ${repo_access.id} = ${row.id} AND ${repo_access.status} = ${row.status} AND ${repo_access.username} = ${row.username}
        AND (${repo_access.lastCheckedAt} IS NULL OR ${repo_access.lastCheckedAt} < ${cutoff}::timestamptz) RETURNING ${repo_access.id}`,
  )
  return turn.length > 0
}

/**
 * POST /api/repo-access: invite `username` as a collaborator (read access). One username per user,
 * and per username one account: a new one replaces the old (taken off the code host when the service
 * invited it), at most `repo_username:user` (RATE_LIMITS) new ones a day. Asking again for the username one holds
 * refreshes it. A code-host failure changes nothing, so the request can be retried.
 */
export const requestRepoAccess = async (
  req: PayloadRequest,
  codeHost: CodeHostProvider,
  username: unknown,
): Promise<RepoAccessStatus> => {
  const user = requireAccount(req, 'Sign in first.')
  await requirePlan(req, user)
  if (typeof username !== 'string' || !USERNAME_PATTERN.test(username)) {
    throw new ServiceError(
      400,
      'invalid_username',
      'A username has 1 to 39 letters, digits or single hyphens, and does not start or end with a hyphen.',
    )
  }
  const { payload } = req
  const row = await rowOf(req, user.id)
  // The username the service invited for this user: refresh it, never a second invitation while one stands.
  // (A row holding it without the record, from before it was kept, goes through every check of a new one.)
  if (holds(row, keyOf(username)) && serviceInvitationOf(row))
    return renewRepoAccess(payload, codeHost, user.id, row, new Date())
  const host = await openCodeHostBudget(payload, user.id, codeHost())
  try {
    return await inviteNewUsername(payload, host, user.id, username)
  } finally {
    await host.close()
  }
}

const inviteNewUsername = async (
  payload: Payload,
  host: CodeHost,
  userId: number,
  username: string,
): Promise<RepoAccessStatus> => {
  const key = keyOf(username)
  await countUsernameChange(payload, userId)
  const claimed = (await claimUsername(payload, userId, key)) === 'claimed'
  let invitationId: number
  try {
    // Someone who has access already (a maintainer, a member, the owner) is refused before any
    // invitation: it would be recorded as the customer's, and it would change their role too.
    if (await host.isCollaborator(username)) throw usernameHasAccess()
    const standing = (await host.invitationsOf(username)).filter((invitation) => !invitation.expired)
    if (standing.length > 0) {
      // This user's own request, a moment earlier, may have sent and recorded it: that one is theirs.
      const current = await rowOf(await plainReq(payload), userId)
      const mine = holds(current, key) ? serviceInvitationOf(current) : null
      if (mine && standing.some((invitation) => invitation.id === mine.invitationId)) {
        await refundUsernameChange(payload, userId)
        return view(current)
      }
      // Someone else's invitation (the code host would answer it to us as if it were new).
      throw usernameHasAccess()
    }
    const invited = await host.invite(username)
    // It became a collaborator between the check and the invitation: that 204 is not ours either.
    if (invited.status !== 'invited') throw usernameHasAccess()
    invitationId = invited.invitationId
  } catch (error) {
    const failure = codeHostFailure(error)
    if (claimed) await releaseUsername(await plainReq(payload), userId, key)
    // Nothing was sent: the day's point is given back.
    if (failure.code === 'username_has_access' || failure.code === 'code_host_unavailable')
      await refundUsernameChange(payload, userId)
    throw failure
  }
  let written: { row: RepoAccess; replaced: Replaced | null; forgotten: string | null }
  try {
    written = await inTransaction(payload, async (tx) => {
      await lockKey(tx, `repo-access:${userId}`)
      await holdClaim(tx, userId, key)
      // Re-read under the lock: a concurrent request may have written another username meanwhile.
      const existing = await rowOf(tx, userId)
      const now = new Date().toISOString()
      const data = {
        user: userId,
        username,
        status: 'pending' as const,
        invitationId,
        invitedAt: now,
        acceptedAt: null,
        lastCheckedAt: now,
        lastError: null,
        ...recordOf(username, invitationId, now),
      }
      const row = existing
        ? await tx.payload.update({ collection: 'repo_access', id: existing.id, data, req: tx, overrideAccess: true })
        : await tx.payload.create({ collection: 'repo_access', data, req: tx, overrideAccess: true })
      let replaced: Replaced | null = null
      let forgotten: string | null = null
      if (holds(existing) && keyOf(existing.username) !== key) {
        const mine = serviceInvitationOf(existing)
        if (mine) {
          replaced = { username: existing.username, invitationId: withdrawableId(existing, mine), serviceInvited: true }
          // The replaced username is taken off the code host below; this job finishes it if that fails.
          await tx.payload.jobs.queue({ task: 'withdrawRepoAccess', input: { userId, ...replaced }, req: tx })
        } else {
          // Not the service's to remove: its claim is given back, the code host is left alone.
          await releaseUsername(tx, userId, keyOf(existing.username))
          forgotten = existing.username
        }
      }
      return { row, replaced, forgotten }
    })
  } catch (error) {
    // The invitation went out but is not recorded: take it back (the code host just created it for
    // us), unless a concurrent request of this user recorded that very invitation.
    const current = await rowOf(await plainReq(payload), userId).catch(() => null)
    if (!(holds(current, key) && serviceInvitationOf(current)?.invitationId === invitationId)) {
      await host.withdrawInvitation(invitationId).catch(() => undefined)
    }
    if (claimed) await releaseUsername(await plainReq(payload), userId, key)
    throw error
  }
  if (written.forgotten) leftOnCodeHost(payload, userId, written.forgotten, 'replaced by another username')
  if (written.replaced) {
    await releaseReplaced(payload, host, userId, written.replaced).catch((error: unknown) => {
      payload.logger.warn({
        msg: 'repository access: the replaced username stays until the queued job removes it',
        userId,
        err: error,
      })
    })
  }
  return view(written.row)
}

/** Asking again for the username the service invited: a refresh, within the budget, at most every REFRESH_INTERVAL_MS. */
const renewRepoAccess = async (
  payload: Payload,
  codeHost: CodeHostProvider,
  userId: number,
  row: RepoAccess,
  now: Date,
): Promise<RepoAccessStatus> => {
  if (recentlyChecked(row, now)) return view(row)
  const host = await openCodeHostBudget(payload, userId, codeHost())
  try {
    if (!(await takeTurn(payload, row, now))) return view(await rowOf(await plainReq(payload), userId))
    const refreshed = await refreshRow(payload, host, userId, row, now, 'throw')
    if (refreshed.status === 'failed') throw usernameHasAccess()
    return refreshed
  } finally {
    await host.close()
  }
}

/**
 * Where the service's invitation for `row` (which records one) stands on the code host, written to the
 * row unless it changed meanwhile. Accepted: collaborator. Pending: unchanged, nothing sent. Expired,
 * or gone without being accepted: withdrawn and sent again, counted like a new username. Someone
 * else's invitation or access in its place: `failed`, and the record is dropped (not ours to remove).
 * A code-host failure is thrown (`throw`) or recorded as the row's last error (`stored`, for GET).
 */
const refreshRow = async (
  payload: Payload,
  host: CodeHost,
  userId: number,
  row: RepoAccess,
  now: Date,
  onFailure: 'throw' | 'stored',
): Promise<RepoAccessStatus> => {
  const mine = serviceInvitationOf(row)!
  const plain = await plainReq(payload)
  const checkedAt = now.toISOString()
  const notOurs = { status: 'failed' as const, invitationId: null, lastError: 'username_has_access', ...NO_RECORD }
  let data: Partial<RepoAccess> = {}
  let sent: number | null = null
  let counted = false
  try {
    if (await host.isCollaborator(row.username)) {
      // An accepted invitation leaves the code host's list: the collaborator is the service's invitee.
      if (row.status !== 'collaborator') data = { status: 'collaborator', acceptedAt: checkedAt, invitationId: null }
    } else {
      const invitations = await host.invitationsOf(row.username)
      const ours = invitations.find((invitation) => invitation.id === mine.invitationId)
      if (ours && !ours.expired) {
        data = { status: 'pending', invitationId: ours.id }
      } else if (invitations.some((invitation) => invitation.id !== mine.invitationId && !invitation.expired)) {
        if (ours) await host.withdrawInvitation(ours.id)
        data = notOurs
      } else {
        await countUsernameChange(payload, userId)
        counted = true
        // Only the service's own expired invitation is deleted, never the collaborator role.
        if (ours) await host.withdrawInvitation(ours.id)
        const invited = await host.invite(row.username)
        if (invited.status === 'invited') {
          sent = invited.invitationId
          data = {
            status: 'pending',
            invitationId: sent,
            invitedAt: checkedAt,
            acceptedAt: null,
            ...recordOf(row.username, sent, checkedAt),
          }
        } else {
          await refundUsernameChange(payload, userId)
          counted = false
          // A 204: our unexpired invitation was accepted meanwhile, or (ours had expired) someone else's access.
          data = ours?.expired ? notOurs : { status: 'collaborator', acceptedAt: checkedAt, invitationId: null }
        }
      }
    }
  } catch (error) {
    // The service's own refusals (the daily limit) are answered as they are.
    if (error instanceof ServiceError) throw error
    const failure = codeHostFailure(error)
    if (counted && failure.code === 'code_host_unavailable') await refundUsernameChange(payload, userId)
    if (onFailure === 'throw') throw failure
    await execute(plain, recordFailure(row, failure.code))
    return view(row)
  }
  const updated = await inTransaction(payload, async (tx) => {
    await lockKey(tx, `repo-access:${userId}`)
    if (!unchangedSince(await rowOf(tx, userId), row)) return null
    return tx.payload.update({
      collection: 'repo_access',
      id: row.id,
      data: { lastError: null, ...data, lastCheckedAt: checkedAt },
      req: tx,
      overrideAccess: true,
    })
  })
  if (updated) return view(updated)
  // A request changed the row while we asked: an invitation sent for a username the user let go is taken back.
  const current = await rowOf(plain, userId)
  if (sent !== null && serviceInvitationOf(current, row.username)?.invitationId !== sent)
    await host.withdrawInvitation(sent).catch(() => undefined)
  return view(current)
}

/**
 * Take a username the user no longer holds off the code host (when the service invited it), then give
 * its claim back.
 */
const releaseReplaced = async (
  payload: Payload,
  host: CodeHost,
  userId: number,
  replaced: Replaced,
): Promise<'withdrawn' | 'kept' | 'none' | 'forgotten'> => {
  const key = keyOf(replaced.username)
  const req = await plainReq(payload)
  if (holds(await rowOf(req, userId), key)) return 'kept'
  if (!replaced.serviceInvited) {
    // No record that the service invited it (a job queued before the record existed): the claim is
    // given back and the code host left alone.
    await releaseUsername(req, userId, key)
    leftOnCodeHost(payload, userId, replaced.username, 'replaced by another username')
    return 'forgotten'
  }
  // Mark the claim as being removed (unless the user's row holds the username again): no request
  // writes it until the code host has dropped it and the claim is gone.
  // Under the user's lock, which every write takes first, so a write is either seen here or refused.
  const marked = await inTransaction(payload, async (tx) => {
    await lockKey(tx, `repo-access:${userId}`)
    return execute(
      tx,
      sql`UPDATE ${repo_usernames} SET ${bare(repo_usernames.removingSince)} = now(), ${bare(repo_usernames.updatedAt)} = now()
        WHERE ${repo_usernames.usernameKey} = ${key} AND ${repo_usernames.user} = ${userId} AND ${NO_ACCESS_HOLDS_CLAIM}
        RETURNING ${repo_usernames.id}`,
    )
  })
  if (marked.length === 0) return (await holdsClaim(payload, userId, key)) ? 'kept' : 'none'
  await host.remove(replaced.username, replaced.invitationId)
  await releaseUsername(req, userId, key)
  return 'withdrawn'
}

/**
 * GET /api/repo-access: where the request stands. At most every REFRESH_INTERVAL_MS per user it asks
 * the code host about a pending invitation the service sent (within the account's budget): accepted
 * makes a collaborator; expired or vanished is sent again (counted like a new username). A code-host
 * failure here answers the stored state rather than an error. A row with no record of the service's
 * invitation (from before it was kept) is answered as stored: the code host is not asked.
 */
/** What the row says, without asking the code host: the dashboard's answer when the code host is unavailable or the account's budget is spent. */
export const storedRepoAccessStatus = async (req: PayloadRequest): Promise<RepoAccessStatus> =>
  view(await rowOf(req, requireAccount(req, 'Sign in first.').id))

export const repoAccessStatus = async (
  req: PayloadRequest,
  codeHost: CodeHostProvider,
  now = new Date(),
): Promise<RepoAccessStatus> => {
  const user = requireAccount(req, 'Sign in first.')
  await requirePlan(req, user)
  const { payload } = req
  const row = await rowOf(req, user.id)
  if (!row || row.status !== 'pending' || !serviceInvitationOf(row) || recentlyChecked(row, now)) return view(row)
  const host = await openCodeHostBudget(payload, user.id, codeHost())
  try {
    if (!(await takeTurn(payload, row, now))) return view(await rowOf(req, user.id))
    return await refreshRow(payload, host, user.id, row, now, 'stored')
  } finally {
    await host.close()
  }
}

/**
 * Take repository access back from a user who no longer holds a license that grants it (revoked,
 * refunded, expired), or, given `replaced`, take that one username off the code host after the user
 * replaced it. Run by a job, which retries while the code host fails. Only a username the row records
 * the service's invitation for is removed on the code host; any other is only marked revoked here.
 */
export const withdrawRepoAccess = async (
  req: PayloadRequest,
  codeHost: CodeHostProvider,
  userId: number,
  replaced: Replaced | null = null,
): Promise<'withdrawn' | 'kept' | 'none' | 'forgotten'> => {
  const { payload } = req
  if (replaced) return releaseReplaced(payload, codeHost(), userId, replaced)
  const plain = await plainReq(payload)
  // A concurrent request may write another username while the code host is asked: then look again.
  for (let attempt = 0; attempt < 3; attempt += 1) {
    if (await hasRepoAccessPlan(plain, userId)) return 'kept'
    const row = await rowOf(plain, userId)
    if (!holds(row)) return 'none'
    const mine = serviceInvitationOf(row)
    if (mine) await codeHost().remove(row.username, withdrawableId(row, mine))
    const done = await inTransaction(payload, async (tx) => {
      await lockKey(tx, `repo-access:${userId}`)
      const current = await rowOf(tx, userId)
      if (!holds(current) || current.id !== row.id || current.username !== row.username) return false
      await tx.payload.update({
        collection: 'repo_access',
        id: row.id,
        data: { status: 'revoked', invitationId: null, lastCheckedAt: new Date().toISOString(), lastError: null },
        req: tx,
        overrideAccess: true,
      })
      await releaseUsername(tx, userId, keyOf(row.username))
      return true
    })
    if (done && !mine) leftOnCodeHost(payload, userId, row.username, 'license no longer grants repository access')
    if (done) return mine ? 'withdrawn' : 'forgotten'
  }
  throw new Error('repository access kept changing while it was being withdrawn; the job tries again')
}

export type RepoInvitationResult = { repoAccess: RepoAccessStatus & { id: number }; auditLogId: number }

/**
 * Support sends a customer's repository invitation again (it expired, or the email went astray).
 * Only a `pending` or `failed` request of a customer who still holds a plan with repository access:
 * the code host is asked first (an invitation the service sent and that was accepted meanwhile makes a
 * collaborator; otherwise the service's old invitation is withdrawn and a new one sent), then, under
 * the user's lock, the row and the audit row are written in one transaction. A username with access or
 * an invitation the service did not send answers 409 `username_has_access` and nothing is sent. If the
 * request changed meanwhile, the new invitation is taken back unless the user still holds that
 * username, and the answer is 409. Staff calls are not counted against the customer's budget.
 */
export const resendRepoInvitation = async (
  req: PayloadRequest,
  codeHost: CodeHostProvider,
  id: number,
  reason: string,
): Promise<RepoInvitationResult> => {
  const { payload } = req
  const plain = await plainReq(payload)
  const row = await payload.findByID({
    collection: 'repo_access',
    id,
    depth: 0,
    req: plain,
    overrideAccess: true,
    disableErrors: true,
  })
  if (!row) throw new ServiceError(404, 'repo_access_not_found', 'There is no repository access request with this id.')
  if (row.status === 'revoked') {
    throw new ServiceError(
      409,
      'repo_access_revoked',
      'This access was withdrawn; the customer asks again from their dashboard.',
    )
  }
  if (row.status === 'collaborator')
    throw new ServiceError(
      409,
      'already_collaborator',
      'This user is a collaborator already: there is no invitation to send.',
    )
  const userId = relationId(row.user)
  if (!userId || !(await hasRepoAccessPlan(plain, userId))) {
    throw new ServiceError(
      409,
      'plan_required',
      'The customer no longer holds a license that includes repository access.',
    )
  }
  const host = codeHost()
  const mine = serviceInvitationOf(row)
  let result: { status: 'pending'; invitationId: number } | { status: 'collaborator' }
  try {
    if (await host.isCollaborator(row.username)) {
      if (!mine) throw usernameHasAccess()
      result = { status: 'collaborator' }
    } else {
      const invitations = await host.invitationsOf(row.username)
      if (invitations.some((invitation) => invitation.id !== mine?.invitationId && !invitation.expired))
        throw usernameHasAccess()
      // Only the service's own invitation is withdrawn.
      if (mine && invitations.some((invitation) => invitation.id === mine.invitationId))
        await host.withdrawInvitation(mine.invitationId)
      const invited = await host.invite(row.username)
      if (invited.status !== 'invited') throw usernameHasAccess()
      result = { status: 'pending', invitationId: invited.invitationId }
    }
  } catch (error) {
    const failure = codeHostFailure(error)
    await execute(plain, recordFailure(row, failure.code))
    throw failure
  }
  const now = new Date().toISOString()
  const written = await inStaffTransaction(req, async (tx) => {
    await lockKey(tx, `repo-access:${userId}`)
    if (!unchangedSince(await rowOf(tx, userId), row)) return null
    const data =
      result.status === 'pending'
        ? {
            status: 'pending' as const,
            invitationId: result.invitationId,
            invitedAt: now,
            ...recordOf(row.username, result.invitationId, now),
          }
        : { status: 'collaborator' as const, invitationId: null, acceptedAt: now }
    const updated = await tx.payload.update({
      collection: 'repo_access',
      id: row.id,
      data: { ...data, lastCheckedAt: now, lastError: null },
      depth: 0,
      req: tx,
      overrideAccess: true,
    })
    const auditLogId = await recordAudit(tx, {
      action: 'repo_access.resend_invitation',
      targetCollection: 'repo_access',
      targetId: String(row.id),
      reason,
      before: { status: row.status, invitationId: row.invitationId ?? null },
      after: { status: updated.status, invitationId: updated.invitationId ?? null },
    })
    return { updated, auditLogId }
  })
  if (!written) {
    if (
      result.status === 'pending' &&
      serviceInvitationOf(await rowOf(plain, userId), row.username)?.invitationId !== result.invitationId
    ) {
      await host.withdrawInvitation(result.invitationId).catch(() => undefined)
    }
    throw new ServiceError(
      409,
      'repo_access_changed',
      'The request changed while the invitation was being sent. Reload and look again.',
    )
  }
  return { repoAccess: { id: written.updated.id, ...view(written.updated) }, auditLogId: written.auditLogId }
}

import { createLocalReq, type Payload, type PayloadRequest } from 'payload'

import { relationId } from '../db/relations'
import { execute, inTransaction, lockKey, sql } from '../db/transaction'
import { ServiceError } from '../http/errors'
import { entitlementsOf } from '../licensing/entitlements'
import type { RepoAccess, User } from '../payload-types'
import { inStaffTransaction, recordAudit } from '../staff/audit'
import { type CodeHost, codeHostFailure, type InviteResult, USERNAME_PATTERN } from './code-host'
import { countUsernameChange, refundUsernameChange } from './username-limit'

/** Plans whose license opens the kit's repository: the top, lifetime plan. */
export const REPO_ACCESS_PLANS = ['ultimate']

/** GET refreshes from the code host at most this often per user: soon enough for a customer back from accepting, rare enough for the code host's rate limit. */
export const REFRESH_INTERVAL_MS = 10_000

/** A claim whose request never wrote its row (the process died in between) gives way after this. */
export const ABANDONED_CLAIM_MS = 10 * 60_000

export type RepoAccessStatus = { status: 'none' | 'pending' | 'collaborator' | 'revoked' | 'failed'; username: string | null }

export type CodeHostProvider = () => CodeHost

/*
 * No code-host call is made while a transaction or a lock is open: a slow code host must not hold
 * database connections or block the user's other requests. The order is always: claim the username
 * (a row in `repo_usernames`, unique on the lower-cased name), ask the code host, then lock, re-read
 * and write; when the write cannot happen, what the code host was asked is undone.
 */

const signedInUser = (req: PayloadRequest): User => {
  const user = req.user && req.user.collection === 'users' ? (req.user as User) : null
  if (!user) throw new ServiceError(401, 'unauthenticated', 'Sign in first.')
  return user
}

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
  (await req.payload.find({ collection: 'repo_access', where: { user: { equals: userId } }, limit: 1, depth: 0, req, overrideAccess: true })).docs[0] ??
  null

const view = (row: RepoAccess | null): RepoAccessStatus => ({ status: row?.status ?? 'none', username: row?.username ?? null })

const keyOf = (username: string) => username.toLowerCase()

/** A row that is not revoked holds its username on the code host (and its claim). */
const holds = (row: RepoAccess | null, key?: string): row is RepoAccess =>
  row !== null && row.status !== 'revoked' && (key === undefined || keyOf(row.username) === key)

const usernameTaken = () => new ServiceError(409, 'username_taken', 'That username already has access through another account.')

/** A request of its own, outside any transaction. */
const plainReq = (payload: Payload) => createLocalReq({}, payload)

/**
 * Claim `key` for the user before the code host is asked: `claimed` when this call took it, `held`
 * when the user held it already; 409 `username_taken` when another account holds it.
 */
const claimUsername = async (payload: Payload, userId: number, key: string): Promise<'claimed' | 'held'> => {
  const req = await plainReq(payload)
  for (let attempt = 0; attempt < 2; attempt += 1) {
    const inserted = await execute(
      req,
      sql`INSERT INTO repo_usernames (username_key, user_id) VALUES (${key}, ${userId}) ON CONFLICT (username_key) DO NOTHING RETURNING id`,
    )
    if (inserted.length > 0) return 'claimed'
    const [holder] = await execute<{ user_id: number; removing_since: string | null }>(
      req,
      sql`SELECT user_id, removing_since FROM repo_usernames WHERE username_key = ${key}`,
    )
    if (holder && Number(holder.user_id) === userId) {
      if (removalUnderWay(holder.removing_since)) throw beingRemoved()
      return 'held'
    }
    if (holder) {
      const cutoff = new Date(Date.now() - ABANDONED_CLAIM_MS).toISOString()
      await execute(
        req,
        sql`DELETE FROM repo_usernames c WHERE c.username_key = ${key} AND c.created_at < ${cutoff}::timestamptz
          AND NOT EXISTS (SELECT 1 FROM repo_access a WHERE a.user_id = c.user_id AND lower(a.username) = c.username_key AND a.status <> 'revoked')`,
      )
    }
  }
  throw usernameTaken()
}

const beingRemoved = () =>
  new ServiceError(409, 'username_being_removed', 'That username is being taken off the repository right now. Try again in a minute.')

/** Whether a removal of the username (releaseReplaced) is under way and not abandoned. */
const removalUnderWay = (removingSince: string | Date | null | undefined) =>
  removingSince !== null && removingSince !== undefined && Date.now() - new Date(removingSince).getTime() < ABANDONED_CLAIM_MS

/**
 * Inside the write's transaction: the user must still hold the claim (taking it again if it was given
 * back meanwhile), and no removal of that username may be under way: a row written now could say
 * `collaborator` about a username the code host is about to drop.
 */
const holdClaim = async (tx: PayloadRequest, userId: number, key: string): Promise<void> => {
  await execute(tx, sql`INSERT INTO repo_usernames (username_key, user_id) VALUES (${key}, ${userId}) ON CONFLICT (username_key) DO NOTHING`)
  const [holder] = await execute<{ user_id: number; removing_since: string | null }>(
    tx,
    sql`SELECT user_id, removing_since FROM repo_usernames WHERE username_key = ${key} FOR UPDATE`,
  )
  if (!holder || Number(holder.user_id) !== userId) throw usernameTaken()
  if (removalUnderWay(holder.removing_since)) throw beingRemoved()
}

/** Give a claim back, unless the user's row holds that username again. */
const releaseUsername = async (req: PayloadRequest, userId: number, key: string): Promise<void> => {
  await execute(
    req,
    sql`DELETE FROM repo_usernames c WHERE c.username_key = ${key} AND c.user_id = ${userId}
      AND NOT EXISTS (SELECT 1 FROM repo_access a WHERE a.user_id = c.user_id AND lower(a.username) = c.username_key AND a.status <> 'revoked')`,
  )
}

const holdsClaim = async (payload: Payload, userId: number, key: string): Promise<boolean> =>
  (await execute(await plainReq(payload), sql`SELECT 1 FROM repo_usernames WHERE username_key = ${key} AND user_id = ${userId}`)).length > 0

const invitationIdOf = (result: InviteResult): number | null => (result.status === 'pending' ? result.invitationId : null)

type Replaced = { username: string; invitationId: number | null }

/**
 * POST /api/repo-access: invite `username` as a collaborator (read access). One username per user,
 * and per username one account: a new one replaces the old (its invitation is withdrawn, its
 * collaborator role removed), at most USERNAME_CHANGES new ones a day. A code-host failure changes
 * nothing, so the request can be retried.
 */
export const requestRepoAccess = async (req: PayloadRequest, codeHost: CodeHostProvider, username: unknown): Promise<RepoAccessStatus> => {
  const user = signedInUser(req)
  await requirePlan(req, user)
  if (typeof username !== 'string' || !USERNAME_PATTERN.test(username)) {
    throw new ServiceError(400, 'invalid_username', 'A username has 1 to 39 letters, digits or single hyphens, and does not start or end with a hyphen.')
  }
  const { payload } = req
  const key = keyOf(username)
  // Asking again for the username one already holds renews its invitation: not a change.
  const renewal = holds(await rowOf(req, user.id), key)
  let claimed = false
  if (!renewal) {
    await countUsernameChange(payload, user.id)
    claimed = (await claimUsername(payload, user.id, key)) === 'claimed'
  }
  const host = codeHost()
  let invited: InviteResult
  try {
    invited = await host.invite(username)
  } catch (error) {
    const failure = codeHostFailure(error)
    if (claimed) await releaseUsername(await plainReq(payload), user.id, key)
    if (!renewal && failure.code === 'code_host_unavailable') await refundUsernameChange(payload, user.id)
    throw failure
  }
  let written: { row: RepoAccess; replaced: Replaced | null }
  try {
    written = await inTransaction(payload, async (tx) => {
      await lockKey(tx, `repo-access:${user.id}`)
      await holdClaim(tx, user.id, key)
      // Re-read under the lock: a concurrent request may have written another username meanwhile.
      const existing = await rowOf(tx, user.id)
      const now = new Date().toISOString()
      const data = {
        user: user.id,
        username,
        status: invited.status,
        invitationId: invitationIdOf(invited),
        invitedAt: invited.status === 'pending' ? now : (existing?.invitedAt ?? null),
        acceptedAt: invited.status === 'collaborator' ? (existing?.acceptedAt ?? now) : null,
        lastCheckedAt: now,
        lastError: null,
      }
      const row = existing
        ? await tx.payload.update({ collection: 'repo_access', id: existing.id, data, req: tx, overrideAccess: true })
        : await tx.payload.create({ collection: 'repo_access', data, req: tx, overrideAccess: true })
      const replaced = holds(existing) && keyOf(existing.username) !== key ? { username: existing.username, invitationId: existing.invitationId ?? null } : null
      // The replaced username is taken off the code host below; this job finishes it if that fails.
      if (replaced) await tx.payload.jobs.queue({ task: 'withdrawRepoAccess', input: { userId: user.id, ...replaced }, req: tx })
      return { row, replaced }
    })
  } catch (error) {
    // The invitation went out but is not recorded: take it back, unless the username was the user's
    // already (and is not being removed: then the new invitation must not outlive the removal).
    const removing = error instanceof ServiceError && error.code === 'username_being_removed'
    if (claimed || (removing && invited.status === 'pending')) {
      await host.remove(username, invitationIdOf(invited)).catch(() => undefined)
    }
    if (claimed) await releaseUsername(await plainReq(payload), user.id, key)
    throw error
  }
  if (written.replaced) {
    await releaseReplaced(payload, host, user.id, written.replaced).catch((error: unknown) => {
      payload.logger.warn({ msg: 'repository access: the replaced username stays until the queued job removes it', userId: user.id, err: error })
    })
  }
  return view(written.row)
}

/** Take a username the user no longer holds off the code host, then give its claim back. */
const releaseReplaced = async (payload: Payload, host: CodeHost, userId: number, replaced: Replaced): Promise<'withdrawn' | 'kept' | 'none'> => {
  const key = keyOf(replaced.username)
  const req = await plainReq(payload)
  if (holds(await rowOf(req, userId), key)) return 'kept'
  // Mark the claim as being removed (unless the user's row holds the username again): no request
  // writes it until the code host has dropped it and the claim is gone.
  // Under the user's lock, which every write takes first, so a write is either seen here or refused.
  const marked = await inTransaction(payload, async (tx) => {
    await lockKey(tx, `repo-access:${userId}`)
    return execute(
      tx,
      sql`UPDATE repo_usernames c SET removing_since = now(), updated_at = now() WHERE c.username_key = ${key} AND c.user_id = ${userId}
        AND NOT EXISTS (SELECT 1 FROM repo_access a WHERE a.user_id = c.user_id AND lower(a.username) = c.username_key AND a.status <> 'revoked')
        RETURNING c.id`,
    )
  })
  if (marked.length === 0) return (await holdsClaim(payload, userId, key)) ? 'kept' : 'none'
  await host.remove(replaced.username, replaced.invitationId)
  await releaseUsername(req, userId, key)
  return 'withdrawn'
}

/**
 * GET /api/repo-access: where the request stands. At most once a minute per user it asks the code
 * host: an accepted invitation makes a collaborator; an expired or vanished one is sent again.
 * A code-host failure here answers the stored state rather than an error.
 */
export const repoAccessStatus = async (req: PayloadRequest, codeHost: CodeHostProvider, now = new Date()): Promise<RepoAccessStatus> => {
  const user = signedInUser(req)
  await requirePlan(req, user)
  const { payload } = req
  const row = await rowOf(req, user.id)
  if (!row || row.status !== 'pending') return view(row)
  if (row.lastCheckedAt && now.getTime() - new Date(row.lastCheckedAt).getTime() < REFRESH_INTERVAL_MS) return view(row)
  const plain = await plainReq(payload)
  const checkedAt = now.toISOString()
  const cutoff = new Date(now.getTime() - REFRESH_INTERVAL_MS).toISOString()
  // Of concurrent GETs, the one that moves lastCheckedAt asks the code host; the others answer the stored state.
  const turn = await execute(
    plain,
    sql`UPDATE repo_access SET last_checked_at = ${checkedAt}::timestamptz
      WHERE id = ${row.id} AND status = 'pending' AND username = ${row.username}
        AND (last_checked_at IS NULL OR last_checked_at < ${cutoff}::timestamptz) RETURNING id`,
  )
  if (turn.length === 0) return view(await rowOf(req, user.id))
  const host = codeHost()
  let data: Partial<RepoAccess> = {}
  let sent: InviteResult | null = null
  try {
    if (await host.isCollaborator(row.username)) {
      data = { status: 'collaborator', acceptedAt: checkedAt, invitationId: null }
    } else {
      const invitation = row.invitationId ? await host.invitation(row.invitationId) : null
      if (!invitation || invitation.expired) {
        if (invitation?.expired) await host.remove(row.username, row.invitationId ?? null)
        sent = await host.invite(row.username)
        data =
          sent.status === 'pending'
            ? { status: 'pending', invitationId: sent.invitationId, invitedAt: checkedAt }
            : { status: 'collaborator', acceptedAt: checkedAt, invitationId: null }
      }
    }
  } catch (error) {
    await execute(plain, sql`UPDATE repo_access SET last_error = ${codeHostFailure(error).code} WHERE id = ${row.id} AND username = ${row.username}`)
    return view(row)
  }
  const updated = await inTransaction(payload, async (tx) => {
    await lockKey(tx, `repo-access:${user.id}`)
    const current = await rowOf(tx, user.id)
    const unchanged =
      current?.id === row.id && current.username === row.username && current.status === 'pending' && (current.invitationId ?? null) === (row.invitationId ?? null)
    if (!unchanged) return null
    return tx.payload.update({
      collection: 'repo_access',
      id: row.id,
      data: { ...data, lastCheckedAt: checkedAt, lastError: null },
      req: tx,
      overrideAccess: true,
    })
  })
  if (updated) return view(updated)
  // A request changed the row while we asked: an invitation sent for a username the user let go is taken back.
  const current = await rowOf(req, user.id)
  if (sent && !holds(current, keyOf(row.username))) await host.remove(row.username, invitationIdOf(sent)).catch(() => undefined)
  return view(current)
}

/**
 * Take repository access back from a user who no longer holds a license that grants it (revoked,
 * refunded, expired), or, given `replaced`, take that one username off the code host after the user
 * replaced it. Run by a job, which retries while the code host fails.
 */
export const withdrawRepoAccess = async (
  req: PayloadRequest,
  codeHost: CodeHostProvider,
  userId: number,
  replaced: Replaced | null = null,
): Promise<'withdrawn' | 'kept' | 'none'> => {
  const { payload } = req
  if (replaced) return releaseReplaced(payload, codeHost(), userId, replaced)
  const plain = await plainReq(payload)
  // A concurrent request may write another username while the code host is asked: then look again.
  for (let attempt = 0; attempt < 3; attempt += 1) {
    if (await hasRepoAccessPlan(plain, userId)) return 'kept'
    const row = await rowOf(plain, userId)
    if (!holds(row)) return 'none'
    await codeHost().remove(row.username, row.invitationId ?? null)
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
    if (done) return 'withdrawn'
  }
  throw new Error('repository access kept changing while it was being withdrawn; the job tries again')
}

export type RepoInvitationResult = { repoAccess: RepoAccessStatus & { id: number }; auditLogId: number }

/**
 * Support sends a customer's repository invitation again (it expired, or the email went astray).
 * Only a `pending` or `failed` request of a customer who still holds a plan with repository access:
 * the code host is asked first (an invitation accepted meanwhile makes a collaborator; otherwise the
 * old invitation is withdrawn and a new one sent), then, under the user's lock, the row and the audit
 * row are written in one transaction. If the request changed meanwhile, the new invitation is taken
 * back unless the user still holds that username, and the answer is 409.
 */
export const resendRepoInvitation = async (req: PayloadRequest, codeHost: CodeHostProvider, id: number, reason: string): Promise<RepoInvitationResult> => {
  const { payload } = req
  const plain = await plainReq(payload)
  const row = await payload.findByID({ collection: 'repo_access', id, depth: 0, req: plain, overrideAccess: true, disableErrors: true })
  if (!row) throw new ServiceError(404, 'repo_access_not_found', 'There is no repository access request with this id.')
  if (row.status === 'revoked') {
    throw new ServiceError(409, 'repo_access_revoked', 'This access was withdrawn; the customer asks again from their dashboard.')
  }
  if (row.status === 'collaborator') throw new ServiceError(409, 'already_collaborator', 'This user is a collaborator already: there is no invitation to send.')
  const userId = relationId(row.user)
  if (!userId || !(await hasRepoAccessPlan(plain, userId))) {
    throw new ServiceError(409, 'plan_required', 'The customer no longer holds a license that includes repository access.')
  }
  const host = codeHost()
  let result: InviteResult
  try {
    if (await host.isCollaborator(row.username)) {
      result = { status: 'collaborator' }
    } else {
      if (row.invitationId) await host.remove(row.username, row.invitationId)
      result = await host.invite(row.username)
    }
  } catch (error) {
    const failure = codeHostFailure(error)
    await execute(plain, sql`UPDATE repo_access SET last_error = ${failure.code} WHERE id = ${row.id} AND username = ${row.username}`)
    throw failure
  }
  const now = new Date().toISOString()
  const written = await inStaffTransaction(req, async (tx) => {
    await lockKey(tx, `repo-access:${userId}`)
    const current = await rowOf(tx, userId)
    const unchanged =
      current?.id === row.id && current.username === row.username && current.status === row.status && (current.invitationId ?? null) === (row.invitationId ?? null)
    if (!unchanged) return null
    const data =
      result.status === 'pending'
        ? { status: 'pending' as const, invitationId: result.invitationId, invitedAt: now }
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
    if (result.status === 'pending' && !holds(await rowOf(plain, userId), keyOf(row.username))) {
      await host.remove(row.username, result.invitationId).catch(() => undefined)
    }
    throw new ServiceError(409, 'repo_access_changed', 'The request changed while the invitation was being sent. Reload and look again.')
  }
  return { repoAccess: { id: written.updated.id, ...view(written.updated) }, auditLogId: written.auditLogId }
}

import type { PayloadRequest } from 'payload'

import { inTransaction, lockKey } from '../db/transaction'
import { ServiceError } from '../http/errors'
import { entitlementsOf } from '../licensing/entitlements'
import type { RepoAccess, User } from '../payload-types'
import { type CodeHost, codeHostFailure, USERNAME_PATTERN } from './code-host'

/** Plans whose license opens the kit's repository: the top, lifetime plan. */
export const REPO_ACCESS_PLANS = ['ultimate']

/** GET refreshes from the code host at most this often per user. */
export const REFRESH_INTERVAL_MS = 60_000

export type RepoAccessStatus = { status: 'none' | 'pending' | 'collaborator' | 'revoked' | 'failed'; username: string | null }

export type CodeHostProvider = () => CodeHost

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

/**
 * POST /api/repo-access: invite `username` as a collaborator (read access). One username per user: a
 * new one replaces the old (its invitation is withdrawn, its collaborator role removed). Requests of
 * one user are serialised; a code-host failure changes nothing, so the request can be retried.
 */
export const requestRepoAccess = async (req: PayloadRequest, codeHost: CodeHostProvider, username: unknown): Promise<RepoAccessStatus> => {
  const user = signedInUser(req)
  await requirePlan(req, user)
  if (typeof username !== 'string' || !USERNAME_PATTERN.test(username)) {
    throw new ServiceError(400, 'invalid_username', 'A username has 1 to 39 letters, digits or single hyphens, and does not start or end with a hyphen.')
  }
  return inTransaction(req.payload, async (tx) => {
    await lockKey(tx, `repo-access:${user.id}`)
    const taken = await tx.payload.find({
      collection: 'repo_access',
      where: { and: [{ username: { like: username } }, { user: { not_equals: user.id } }, { status: { in: ['pending', 'collaborator'] } }] },
      limit: 10,
      depth: 0,
      req: tx,
      overrideAccess: true,
    })
    if (taken.docs.some((row) => row.username.toLowerCase() === username.toLowerCase())) {
      throw new ServiceError(409, 'username_taken', 'That username already has access through another account.')
    }
    const existing = await rowOf(tx, user.id)
    const host = codeHost()
    try {
      if (existing && existing.username.toLowerCase() !== username.toLowerCase() && existing.status !== 'revoked') {
        await host.remove(existing.username, existing.invitationId ?? null)
      }
      const result = await host.invite(username)
      const now = new Date().toISOString()
      const data = {
        user: user.id,
        username,
        status: result.status,
        invitationId: result.status === 'pending' ? result.invitationId : null,
        invitedAt: result.status === 'pending' ? now : (existing?.invitedAt ?? null),
        acceptedAt: result.status === 'collaborator' ? (existing?.acceptedAt ?? now) : null,
        lastCheckedAt: now,
        lastError: null,
      }
      const row = existing
        ? await tx.payload.update({ collection: 'repo_access', id: existing.id, data, req: tx, overrideAccess: true })
        : await tx.payload.create({ collection: 'repo_access', data, req: tx, overrideAccess: true })
      return view(row)
    } catch (error) {
      throw codeHostFailure(error)
    }
  })
}

/**
 * GET /api/repo-access: where the request stands. At most once a minute per user it asks the code
 * host: an accepted invitation makes a collaborator; an expired or vanished one is sent again.
 * A code-host failure here answers the stored state rather than an error.
 */
export const repoAccessStatus = async (req: PayloadRequest, codeHost: CodeHostProvider, now = new Date()): Promise<RepoAccessStatus> => {
  const user = signedInUser(req)
  await requirePlan(req, user)
  const row = await rowOf(req, user.id)
  if (!row || row.status !== 'pending') return view(row)
  if (row.lastCheckedAt && now.getTime() - new Date(row.lastCheckedAt).getTime() < REFRESH_INTERVAL_MS) return view(row)
  return inTransaction(req.payload, async (tx) => {
    await lockKey(tx, `repo-access:${user.id}`)
    const current = await rowOf(tx, user.id)
    if (!current || current.status !== 'pending') return view(current)
    const host = codeHost()
    const checkedAt = now.toISOString()
    try {
      let data: Partial<RepoAccess>
      if (await host.isCollaborator(current.username)) {
        data = { status: 'collaborator', acceptedAt: checkedAt, invitationId: null }
      } else {
        const invitation = current.invitationId ? await host.invitation(current.invitationId) : null
        if (!invitation || invitation.expired) {
          if (invitation?.expired) await host.remove(current.username, current.invitationId ?? null)
          const result = await host.invite(current.username)
          data =
            result.status === 'pending'
              ? { status: 'pending', invitationId: result.invitationId, invitedAt: checkedAt }
              : { status: 'collaborator', acceptedAt: checkedAt, invitationId: null }
        } else {
          data = {}
        }
      }
      const updated = await tx.payload.update({
        collection: 'repo_access',
        id: current.id,
        data: { ...data, lastCheckedAt: checkedAt, lastError: null },
        req: tx,
        overrideAccess: true,
      })
      return view(updated)
    } catch (error) {
      await tx.payload.update({
        collection: 'repo_access',
        id: current.id,
        data: { lastCheckedAt: checkedAt, lastError: codeHostFailure(error).code },
        req: tx,
        overrideAccess: true,
      })
      return view(current)
    }
  })
}

/**
 * Take repository access back from a user who no longer holds a license that grants it (revoked,
 * refunded, expired). Run by a job, which retries while the code host fails.
 */
export const withdrawRepoAccess = async (req: PayloadRequest, codeHost: CodeHostProvider, userId: number): Promise<'withdrawn' | 'kept' | 'none'> => {
  if (await hasRepoAccessPlan(req, userId)) return 'kept'
  return inTransaction(req.payload, async (tx) => {
    await lockKey(tx, `repo-access:${userId}`)
    const row = await rowOf(tx, userId)
    if (!row || row.status === 'revoked') return 'none'
    await codeHost().remove(row.username, row.invitationId ?? null)
    await tx.payload.update({
      collection: 'repo_access',
      id: row.id,
      data: { status: 'revoked', invitationId: null, lastCheckedAt: new Date().toISOString(), lastError: null },
      req: tx,
      overrideAccess: true,
    })
    return 'withdrawn'
  })
}

import express, { type Request, type Response } from 'express'

import { acceptInvitation, invite, isCollaborator, isOwner, removeCollaborator, roleOf } from './collaboration'
import type { CodeHost } from './context'
import { DOCS, notFound, validationFailed } from './errors'
import { collaboratorObject, invitationObject } from './objects'
import { paginate } from './pagination'
import type { InvitationPermission } from './types'

/** The API's permission names and what an invitation calls them. */
const INVITATION_PERMISSIONS: Record<string, InvitationPermission> = {
  pull: 'read',
  triage: 'triage',
  push: 'write',
  maintain: 'maintain',
  admin: 'admin',
}

/** The legacy base permission of each role, as GitHub's permission endpoint gives it beside the role's name. */
const LEGACY_PERMISSIONS: Record<InvitationPermission, 'admin' | 'write' | 'read'> = {
  read: 'read',
  triage: 'read',
  write: 'write',
  maintain: 'write',
  admin: 'admin',
}

/** GitHub invites with `push` when the body names no permission. */
const readPermission = (body: unknown): InvitationPermission => {
  const permission: unknown =
    typeof body === 'object' && body !== null && 'permission' in body ? body.permission : 'push'
  if (typeof permission === 'string' && Object.hasOwn(INVITATION_PERMISSIONS, permission)) {
    return INVITATION_PERMISSIONS[permission] as InvitationPermission
  }
  throw validationFailed([{ resource: 'Repository', code: 'invalid', field: 'permission' }], DOCS.addCollaborator)
}

const param = (req: Request, name: string): string => String(req.params[name])

const noContent = (res: Response): void => {
  res.status(204).end()
}

/** GitHub's REST endpoints for a repository's collaborators and invitations, on the one repository there is. */
export const apiRoutes = (host: CodeHost): express.Router => {
  const router = express.Router()
  const repository = '/repos/:owner/:repo'

  /** Any other repository is one the token cannot see, which GitHub answers with 404. */
  const requireRepository = (req: Request, documentationUrl: string): void => {
    if (!isOwner(host, param(req, 'owner')) || param(req, 'repo').toLowerCase() !== host.repo.toLowerCase()) {
      throw notFound(documentationUrl)
    }
  }

  const requireAccount = (req: Request, documentationUrl: string) => {
    const account = host.accounts.find(param(req, 'username'))
    if (!account) throw notFound(documentationUrl)
    return account
  }

  router.put(`${repository}/collaborators/:username`, (req, res) => {
    requireRepository(req, DOCS.addCollaborator)
    const account = requireAccount(req, DOCS.addCollaborator)
    if (isOwner(host, account.login)) {
      throw validationFailed(
        [{ resource: 'Repository', code: 'custom', message: 'Repository owner cannot be a collaborator' }],
        DOCS.addCollaborator,
      )
    }
    const invitation = invite(host, account, readPermission(req.body))
    if (!invitation) {
      noContent(res)
      return
    }
    const body = invitationObject(host, invitation)
    res.status(201).location(body.url).json(body)
  })

  router.get(`${repository}/collaborators/:username`, (req, res) => {
    requireRepository(req, DOCS.checkCollaborator)
    if (!isCollaborator(host, param(req, 'username'))) throw notFound(DOCS.checkCollaborator)
    noContent(res)
  })

  // The legacy permission (admin, write, read, none) and the role's own name; `none` for an account with no access.
  router.get(`${repository}/collaborators/:username/permission`, (req, res) => {
    requireRepository(req, DOCS.getPermission)
    const account = requireAccount(req, DOCS.getPermission)
    if (!isCollaborator(host, account.login)) {
      res.json({ permission: 'none', role_name: 'none', user: null })
      return
    }
    const role = roleOf(host, account.login)
    res.json({ permission: LEGACY_PERMISSIONS[role], role_name: role, user: collaboratorObject(host, account.login) })
  })

  router.get(`${repository}/collaborators`, (req, res) => {
    requireRepository(req, DOCS.listCollaborators)
    const logins = paginate(host.url, req, res, [host.owner.login, ...host.state.collaborators])
    res.json(logins.map((login) => collaboratorObject(host, login)))
  })

  // GitHub answers 204 whether or not the account was a collaborator, and 404 for one that does not exist.
  router.delete(`${repository}/collaborators/:username`, (req, res) => {
    requireRepository(req, DOCS.removeCollaborator)
    removeCollaborator(host, requireAccount(req, DOCS.removeCollaborator).login)
    noContent(res)
  })

  // Expired invitations stay listed, marked `expired`, until deleted or replaced.
  router.get(`${repository}/invitations`, (req, res) => {
    requireRepository(req, DOCS.listInvitations)
    const invitations = paginate(host.url, req, res, [...host.state.invitations.values()])
    res.json(invitations.map((invitation) => invitationObject(host, invitation)))
  })

  router.delete(`${repository}/invitations/:invitationId`, (req, res) => {
    requireRepository(req, DOCS.deleteInvitation)
    if (!host.state.invitations.delete(Number(param(req, 'invitationId')))) throw notFound(DOCS.deleteInvitation)
    noContent(res)
  })

  router.patch('/user/repository_invitations/:invitationId', (req, res) => {
    if (!acceptInvitation(host, Number(param(req, 'invitationId')))) throw notFound(DOCS.acceptInvitation)
    noContent(res)
  })

  return router
}

import type { Account } from './accounts'
import type { CodeHost } from './context'
import type { InvitationPermission, StandInInvitation } from './types'

/** GitHub's repository invitations expire after seven days. */
const INVITATION_LIFETIME_MS = 7 * 24 * 60 * 60 * 1000

const key = (login: string) => login.toLowerCase()

export const isExpired = (host: CodeHost, invitation: StandInInvitation): boolean =>
  host.now().getTime() - invitation.createdAt.getTime() >= INVITATION_LIFETIME_MS

export const isOwner = (host: CodeHost, login: string): boolean => key(login) === key(host.owner.login)

/** The owner counts as a collaborator of its own repository, as on GitHub. */
export const isCollaborator = (host: CodeHost, login: string): boolean =>
  isOwner(host, login) || host.state.collaborators.has(key(login))

/** A collaborator that is in the state without a role was put there by a test; GitHub's default role is write. */
export const roleOf = (host: CodeHost, login: string): InvitationPermission =>
  isOwner(host, login) ? 'admin' : (host.roles.get(key(login)) ?? 'write')

const invitationOf = (host: CodeHost, login: string): StandInInvitation | undefined =>
  [...host.state.invitations.values()].find((invitation) => key(invitation.login) === key(login))

/**
 * "Add a repository collaborator": undefined when the account already is one (its role changes, and
 * GitHub answers 204 with no body), otherwise the invitation to answer with (201). GitHub documents
 * 201 as "a new invitation is created" and says nothing of a username already invited; like GitHub,
 * the stand-in sends no second invitation then: an unexpired pending invitation (whoever sent it) is
 * answered again, 201 with the same id, unchanged; an expired one is replaced by a new one.
 */
export const invite = (
  host: CodeHost,
  account: Account,
  permissions: InvitationPermission,
): StandInInvitation | undefined => {
  if (host.state.collaborators.has(key(account.login))) {
    host.roles.set(key(account.login), permissions)
    return undefined
  }
  const pending = invitationOf(host, account.login)
  if (pending && !isExpired(host, pending)) return pending
  if (pending) host.state.invitations.delete(pending.id)
  const invitation = { id: host.nextInvitationId(), login: account.login, createdAt: host.now(), permissions }
  host.state.invitations.set(invitation.id, invitation)
  return invitation
}

/** The invitee's "Accept": false when there is nothing to accept, the invitation being unknown or expired. */
export const acceptInvitation = (host: CodeHost, id: number): boolean => {
  const invitation = host.state.invitations.get(id)
  if (!invitation || isExpired(host, invitation)) return false
  host.state.invitations.delete(id)
  host.state.collaborators.add(key(invitation.login))
  host.roles.set(key(invitation.login), invitation.permissions)
  return true
}

export const acceptInvitationOf = (host: CodeHost, login: string): boolean => {
  const invitation = invitationOf(host, login)
  return invitation !== undefined && acceptInvitation(host, invitation.id)
}

/** A collaborator added by hand (a maintainer), without an invitation; its pending invitation, if any, goes. */
export const addCollaborator = (host: CodeHost, account: Account, role: InvitationPermission): void => {
  const pending = invitationOf(host, account.login)
  if (pending) host.state.invitations.delete(pending.id)
  host.state.collaborators.add(key(account.login))
  host.roles.set(key(account.login), role)
}

/** An invitation the owner sends by hand; a standing one is answered as the API does. */
export const inviteByHand = (host: CodeHost, account: Account, role: InvitationPermission): StandInInvitation => {
  if (isCollaborator(host, account.login)) throw new Error(`${account.login} is a collaborator already (or the owner)`)
  return invite(host, account, role) as StandInInvitation
}

export const removeCollaborator = (host: CodeHost, login: string): void => {
  host.state.collaborators.delete(key(login))
  host.roles.delete(key(login))
}

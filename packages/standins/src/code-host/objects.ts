import type { Account } from './accounts'
import { isExpired, roleOf } from './collaboration'
import type { CodeHost } from './context'
import {
  recordedAccount,
  recordedCollaborator,
  recordedInvitation,
  RECORDED_API_URL,
  type GitHubCollaborator,
  type GitHubInvitation,
  type GitHubRepository,
} from './fixtures'
import type { InvitationPermission, StandInInvitation } from './types'

/** GitHub's (legacy) global node id: base64 of `0<type length>:<type><id>`, e.g. `04:User1`. */
const nodeId = (type: string, id: number): string => Buffer.from(`0${type.length}:${type}${id}`).toString('base64')

/** GitHub writes timestamps without milliseconds. */
export const timestamp = (date: Date): string => date.toISOString().replace(/\.\d{3}Z$/, 'Z')

/** The object with every link (`url`, `*_url`) rewritten by the replacements, in order. */
const relinked = <T extends object>(object: T, replacements: [from: string, to: string][]): T =>
  Object.fromEntries(
    Object.entries(object).map(([name, value]) => [
      name,
      (name === 'url' || name.endsWith('_url')) && typeof value === 'string'
        ? replacements.reduce((link, [from, to]) => link.replaceAll(from, to), value)
        : value,
    ]),
  ) as T

/**
 * A recorded account made into `account`. API links point at the stand-in so a client following them
 * stays offline; web links keep pointing at github.com like GitHub's do.
 */
const accountObject = <T extends { login: string }>(recorded: T, account: Account, url: string): T => ({
  ...relinked(recorded, [
    [`${RECORDED_API_URL}/users/${recorded.login}`, `${url}/users/${account.login}`],
    [`https://github.com/${recorded.login}`, `https://github.com/${account.login}`],
  ]),
  login: account.login,
  id: account.id,
  node_id: nodeId('User', account.id),
  avatar_url: `https://avatars.githubusercontent.com/u/${account.id}?v=4`,
  type: 'User',
})

const repositoryObject = (host: CodeHost, recorded: GitHubRepository): GitHubRepository => {
  const fullName = `${host.owner.login}/${host.repo}`
  return {
    ...relinked(recorded, [
      [`${RECORDED_API_URL}/repos/${recorded.full_name}`, `${host.url}/repos/${fullName}`],
      [`https://github.com/${recorded.full_name}`, `https://github.com/${fullName}`],
    ]),
    node_id: nodeId('Repository', recorded.id),
    name: host.repo,
    full_name: fullName,
    owner: accountObject(recorded.owner, host.owner, host.url),
    // A kit's repository is private, which is why customers need an invitation at all.
    private: true,
  }
}

/** The stand-in's page listing the invitations, where a developer accepts one offline. */
const invitationsPageUrl = (host: CodeHost): string => `${host.url}/${host.owner.login}/${host.repo}/invitations`

export const invitationObject = (host: CodeHost, invitation: StandInInvitation): GitHubInvitation => {
  const recorded = recordedInvitation()
  return {
    ...recorded,
    id: invitation.id,
    node_id: nodeId('RepositoryInvitation', invitation.id),
    repository: repositoryObject(host, recorded.repository),
    invitee: accountObject(recordedAccount(), host.accounts.add(invitation.login), host.url),
    inviter: accountObject(recordedAccount(), host.owner, host.url),
    permissions: invitation.permissions,
    created_at: timestamp(invitation.createdAt),
    expired: isExpired(host, invitation),
    url: `${host.url}/user/repository_invitations/${invitation.id}`,
    html_url: invitationsPageUrl(host),
  }
}

const ROLES: InvitationPermission[] = ['read', 'triage', 'write', 'maintain', 'admin']

/** Each role includes the ones below it. */
const permissionsOf = (role: InvitationPermission): NonNullable<GitHubCollaborator['permissions']> => {
  const rank = ROLES.indexOf(role)
  return { pull: true, triage: rank >= 1, push: rank >= 2, maintain: rank >= 3, admin: rank >= 4 }
}

/** `accounts.add` finds the account, or makes one of a login a test wrote into `state.collaborators`. */
export const collaboratorObject = (host: CodeHost, login: string): GitHubCollaborator => {
  const role = roleOf(host, login)
  return {
    ...accountObject(recordedCollaborator(), host.accounts.add(login), host.url),
    permissions: permissionsOf(role),
    role_name: role,
  }
}

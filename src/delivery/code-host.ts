import { Octokit } from '@octokit/rest'

import { ServiceError } from '../http/errors'

export type CodeHostOptions = { token: string; owner: string; repo: string; apiUrl?: string | null; timeoutMs?: number }

/**
 * What an invitation request came to: `invited` when the code host created an invitation for us (201,
 * its id is ours to withdraw later); `has_access` when it answered 204, the username already being a
 * collaborator (an existing collaborator, a member, the owner): nothing was sent, and that access is
 * not ours to record or to remove.
 */
type InviteResult = { status: 'invited'; invitationId: number } | { status: 'has_access' }

/** A pending (or expired, not yet deleted) invitation to the repository. */
type PendingInvitation = { id: number; expired: boolean }

export type CodeHost = {
  invite: (username: string) => Promise<InviteResult>
  isCollaborator: (username: string) => Promise<boolean>
  /** The repository's invitations addressed to this username (any case), whoever sent them; `expired` after 7 days. */
  invitationsOf: (username: string) => Promise<PendingInvitation[]>
  /** Delete one invitation; a no-op when it is gone already. Never touches a collaborator. */
  withdrawInvitation: (invitationId: number) => Promise<void>
  /**
   * Take back an invitation and the collaborator role; both are no-ops when already gone. Only ever
   * called for a username this service invited itself (src/delivery/repo-access.ts checks the record).
   * The role is removed only while it is still the read role the service granted: a username the
   * seller has since given more (triage, write, maintain, admin) is the seller's now and stays
   * (`kept`); the invitation is withdrawn either way.
   */
  remove: (username: string, invitationId: number | null) => Promise<'removed' | 'kept'>
}

/** The role the service invites with (`permission: 'pull'`), as the code host names it. */
const SERVICE_ROLE = 'read'

/** A code host's usernames: 1 to 39 letters, digits or single inner hyphens. */
export const USERNAME_PATTERN = /^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}$/

const statusOf = (error: unknown): number | null =>
  typeof (error as { status?: unknown })?.status === 'number' ? (error as { status: number }).status : null

const headerOf = (error: unknown, name: string): string | undefined =>
  (error as { response?: { headers?: Record<string, string | undefined> } })?.response?.headers?.[name]

/**
 * What a code-host failure means for our caller: an unknown account is the user's mistake (400);
 * validation refusals (422) and rate limits are 429 `rate_limited`; anything else (5xx, network,
 * timeout) is 502 `code_host_unavailable`, and the request can simply be retried.
 */
export const codeHostFailure = (error: unknown): ServiceError => {
  if (error instanceof ServiceError) return error
  const status = statusOf(error)
  if (status === 404)
    return new ServiceError(400, 'invalid_username', 'There is no account with that username on the code host.')
  if (status === 422 || status === 429 || (status === 403 && headerOf(error, 'x-ratelimit-remaining') === '0')) {
    return new ServiceError(
      429,
      'rate_limited',
      'The code host is refusing requests right now. Please try again later.',
    )
  }
  return new ServiceError(502, 'code_host_unavailable', 'The code host is not available right now. Please try again.')
}

/** The kit repository on the code host, through @octokit/rest with a server-held token. */
export const createCodeHost = (options: CodeHostOptions): CodeHost => {
  const octokit = new Octokit({
    auth: options.token,
    userAgent: 'starter-kit-licensing',
    ...(options.apiUrl ? { baseUrl: options.apiUrl.replace(/\/+$/, '') } : {}),
    request: { retries: 0 },
    log: { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined },
  })
  // Octokit ignores `request.timeout`: every call gets its own aborting signal instead.
  const timeoutMs = options.timeoutMs ?? 10_000
  const timed = () => ({ request: { signal: AbortSignal.timeout(timeoutMs) } })
  const repo = { owner: options.owner, repo: options.repo }
  const withdrawInvitation = async (invitationId: number) => {
    try {
      await octokit.rest.repos.deleteInvitation({ ...repo, invitation_id: invitationId, ...timed() })
    } catch (error) {
      if (statusOf(error) !== 404) throw error
    }
  }
  return {
    invite: async (username) => {
      const response = await octokit.rest.repos.addCollaborator({ ...repo, username, permission: 'pull', ...timed() })
      // Only a 201 carries an invitation; 204 (an existing collaborator) must never count as ours.
      if (response.status === 201 && typeof response.data?.id === 'number')
        return { status: 'invited', invitationId: response.data.id }
      return { status: 'has_access' }
    },
    isCollaborator: async (username) => {
      try {
        await octokit.rest.repos.checkCollaborator({ ...repo, username, ...timed() })
        return true
      } catch (error) {
        if (statusOf(error) === 404) return false
        throw error
      }
    },
    invitationsOf: async (username) => {
      const invitations = await octokit.paginate(octokit.rest.repos.listInvitations, {
        ...repo,
        per_page: 100,
        ...timed(),
      })
      const key = username.toLowerCase()
      return invitations
        .filter((invitation) => invitation.invitee?.login.toLowerCase() === key)
        .map((invitation) => ({ id: invitation.id, expired: Boolean(invitation.expired) }))
    },
    withdrawInvitation,
    remove: async (username, invitationId) => {
      if (invitationId !== null) await withdrawInvitation(invitationId)
      let role: { permission: string; role_name: string }
      try {
        role = (await octokit.rest.repos.getCollaboratorPermissionLevel({ ...repo, username, ...timed() })).data
      } catch (error) {
        // An account that no longer exists holds nothing.
        if (statusOf(error) === 404) return 'removed'
        throw error
      }
      if (role.permission === 'none') return 'removed'
      if (role.role_name !== SERVICE_ROLE) return 'kept'
      await octokit.rest.repos.removeCollaborator({ ...repo, username, ...timed() })
      return 'removed'
    },
  }
}

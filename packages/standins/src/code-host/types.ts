/** The permission an invitation grants, in GitHub's words (the API's `pull` is `read`, `push` is `write`). */
export type InvitationPermission = 'read' | 'write' | 'admin' | 'maintain' | 'triage'

export type StandInInvitation = {
  id: number
  login: string
  createdAt: Date
  permissions: InvitationPermission
}

type RecordedRequest = { method: string; path: string; at: number }

export type CodeHostState = {
  invitations: Map<number, StandInInvitation>
  /** Lower-case logins of the users who accepted an invitation; the repository's owner is not among them. */
  collaborators: Set<string>
  requests: RecordedRequest[]
}

export type CodeHostStartOptions = {
  /** Default 0: any free port. The server binds 127.0.0.1 only. */
  port?: number
  /** Requests must send `Authorization: token <token>` or `Authorization: Bearer <token>`. */
  token: string
  /** The one repository that exists; its owner is the account the token belongs to. */
  owner: string
  repo: string
  /** Accounts that exist besides the owner (logins are case-insensitive). Default DEFAULT_USERS. */
  users?: string[]
  /** Every well-formed login exists (offline development, where a developer enters their own). Default false. */
  everyLoginExists?: boolean
  log?: (line: string) => void
  /** The clock invitations are created and expire by; tests move it to make them expire. Default the real one. */
  now?: () => Date
  /**
   * People who already have access when the stand-in starts (the seller's maintainers): each account
   * exists and is a collaborator with its role (default `maintain`), as if it had accepted long ago.
   */
  collaborators?: Array<string | { login: string; role?: InvitationPermission }>
}

/**
 * The next `count` (default 1) requests whose method (any when omitted) and path match are answered by
 * the rule instead of the stand-in, before authentication and without changing anything. A string path
 * matches the exact path, a RegExp is tested against it (query strings are not part of the path).
 * Without `status`, `body` and `delayMs` the answer is a 500; `headers` are laid over the usual ones
 * (`x-ratelimit-remaining: 0`, `retry-after`). With only `delayMs`, the request waits that long and is
 * then handled normally, like a slow GitHub.
 */
export type FailureRule = {
  method?: string
  path: RegExp | string
  status?: number
  delayMs?: number
  count?: number
  body?: unknown
  headers?: Record<string, string>
}

export type CodeHostStandIn = {
  url: string
  port: number
  close(): Promise<void>
  /** Makes an account exist, so it can be invited. */
  addUser(login: string): void
  /** The user accepts their pending invitation and becomes a collaborator; throws when there is none. */
  accept(login: string): void
  /**
   * Makes the account exist and a collaborator already, with `role` (default `maintain`), as the
   * repository's owner would add a maintainer by hand: the API answers 204 to inviting it.
   */
  addCollaborator(login: string, role?: InvitationPermission): void
  /**
   * The owner invites the account by hand (outside the API under test), `role` default `write`: a
   * pending invitation someone else sent. Returns its id.
   */
  addInvitation(login: string, role?: InvitationPermission): number
  /** The collaborator's role (`admin` for the owner), or undefined when the account is not one. */
  roleOf(login: string): InvitationPermission | undefined
  failNext(rule: FailureRule): void
  clearFailures(): void
  state: CodeHostState
}

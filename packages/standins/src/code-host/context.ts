import type { Account, Accounts } from './accounts'
import type { CodeHostState, InvitationPermission } from './types'

/** What the routes, pages and test controls of one stand-in share. */
export type CodeHost = {
  state: CodeHostState
  accounts: Accounts
  /** Each collaborator's role by lower-case login; `state.collaborators` alone says who is one. */
  roles: Map<string, InvitationPermission>
  /** The account the token belongs to, which owns the one repository. */
  owner: Account
  repo: string
  url: string
  now: () => Date
  nextInvitationId: () => number
}

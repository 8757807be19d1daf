import type { DiscordRecordedRequest } from './types'

export type StandInUser = { id: string; username: string; globalName: string | null; bot: boolean }

/** `managed` is the bot's own role, which Discord creates with the bot and nobody can assign. */
export type StandInRole = { id: string; name: string; position: number; managed: boolean; permissions: string }

export type StandInMember = {
  userId: string
  roles: string[]
  joinedAt: Date
  nick: string | null
  mute: boolean
  deaf: boolean
}

/** A code handed out at "Authorize", bound to everything the token request must repeat or prove. */
export type AuthorizationCode = {
  code: string
  redirectUri: string
  userId: string
  scopes: string[]
  /** BASE64URL(SHA-256(code_verifier)), when the request sent `code_challenge_method=S256`. */
  codeChallenge?: string
  expiresAt: Date
  /** Set by the first exchange attempt whatever its outcome, so a guessed code_verifier cannot be retried. */
  used: boolean
  /** The grant the code was exchanged for; replaying the code revokes it. */
  grant?: Grant
}

/** One authorization: its current access and refresh token, which revoking either ends together. */
export type Grant = {
  userId: string
  scopes: string[]
  accessToken: string
  refreshToken: string
  accessExpiresAt: Date
}

/** What the routes, pages and test controls of one stand-in share. */
export type DiscordHost = {
  url: string
  guildId: string
  botUserId: string
  botRoleId: string
  app: { clientId: string; clientSecret: string; name: string; redirectUris: Set<string> }
  /** Changed by `setBotToken`. */
  botToken: string
  users: Map<string, StandInUser>
  roles: Map<string, StandInRole>
  members: Map<string, StandInMember>
  codes: Map<string, AuthorizationCode>
  /** Every live grant under its access token and under its refresh token. */
  accessTokens: Map<string, Grant>
  refreshTokens: Map<string, Grant>
  /** Every access token ever issued, live or not, oldest first (for a test that looks for it where it must not be). */
  issuedAccessTokens: string[]
  requests: DiscordRecordedRequest[]
  now: () => Date
  nextId: () => string
}

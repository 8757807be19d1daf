import type { APIRole } from 'discord-api-types/v10'

/** A Discord account that exists on the stand-in: who can sign in, be added to the guild, be looked up. */
export type DiscordUserSeed = { id?: string; username: string; globalName?: string }

/** A role of the guild. Roles at or above `botRolePosition` are ones the bot cannot manage, as on Discord. */
export type DiscordRoleSeed = { id?: string; name: string; position?: number }

export type DiscordStandInOptions = {
  /** Bot routes require `Authorization: Bot <botToken>`. */
  botToken: string
  /** The OAuth2 application's client id and secret (the token endpoint takes Basic auth or form fields). */
  clientId: string
  clientSecret: string
  /** The one guild (server) the bot is in. Default a fixed snowflake, so development links stay valid across restarts. */
  guildId?: string
  /** Shown on the consent page as "Authorize <appName>". Default "Stand-in App". */
  appName?: string
  /**
   * The application's registered redirect URIs. When none are registered (here or by
   * `registerRedirectUri`), any http(s) redirect_uri is accepted, so development works without setup.
   */
  redirectUris?: string[]
  /** Default 0: any free port. The server binds 127.0.0.1 only. */
  port?: number
  /** Default DEFAULT_USERS (`discord-buyer` and `discord-friend`, with fixed ids). */
  users?: DiscordUserSeed[]
  /** Default DEFAULT_ROLES (`Buyers` at position 1 and `Ultimate` at 2, with fixed ids). */
  roles?: DiscordRoleSeed[]
  /** The position of the bot's own (managed) role, its highest. Default 10. */
  botRolePosition?: number
  log?: (line: string) => void
  /** The clock codes and tokens expire by and members join by; tests move it. Default the real one. */
  now?: () => Date
}

export type AuthorizationKind = 'bot' | 'bearer' | 'basic' | 'none'

/** One request as the stand-in saw it: which kind of credentials it carried, never the credentials. */
export type DiscordRecordedRequest = {
  method: string
  /** The full path, without the query string: `/api/v10/guilds/…/members/…`. */
  path: string
  authorization: AuthorizationKind
  /** Set when the answer's head is written; 0 while the request is still being answered. */
  status: number
  /** The decoded `X-Audit-Log-Reason` header, when the request carried one. */
  auditLogReason?: string
}

/**
 * The next `count` (default 1) requests whose method (any when omitted) and full path match are
 * answered by the rule instead of the stand-in, before authentication and without changing anything.
 * A string path matches exactly (`/api/v10/guilds/…/members/…`), a RegExp is tested against it.
 * Status 429 answers Discord's rate-limit body and headers, `retryAfter` seconds (default 1, a float
 * like Discord's `retry_after`) and `global` (default false); other statuses answer Discord's
 * `{"message": "<status>: <reason>", "code": 0}`. Without `status`, a rule with `delayMs` holds the
 * request that long and then lets it through, like a slow Discord; with both, the failure comes late.
 */
export type DiscordFailureRule = {
  method?: string
  path: RegExp | string
  status?: number
  count?: number
  delayMs?: number
  retryAfter?: number
  global?: boolean
}

export type DiscordGuildMember = { roles: string[]; joinedAt: string }

export type DiscordStandIn = {
  /** `http://127.0.0.1:<port>` */
  url: string
  port: number
  /** `${url}/api/v10`; `@discordjs/rest` takes `api: ${url}/api` and adds the version itself. */
  apiUrl: string
  /** `${url}/oauth2/authorize`, where the service sends the browser. */
  authorizeUrl: string
  guildId: string
  /** The bot's user id: the client id when that is a snowflake (an application's bot shares its id), else a fixed one. */
  botUserId: string
  /** Makes an account exist. Throws when the id or the username is taken. */
  addUser(user: DiscordUserSeed): { id: string; username: string }
  /** Adds a role to the guild; at or above `botRolePosition` the bot cannot manage it. */
  addRole(role: DiscordRoleSeed): APIRole
  /**
   * What the consent page's "Authorize" does when `userId` is signed in: the redirect back to the
   * service (its redirect_uri with `code` and `state`). Rejects, as the page answers 400, a request
   * Discord shows no consent page for (unknown client_id, unregistered redirect_uri, bad scope…).
   */
  approve(authorizeUrl: string, userId: string): Promise<string>
  /** What "Cancel" does: the redirect with `error=access_denied`, its description and `state`. */
  deny(authorizeUrl: string): Promise<string>
  registerRedirectUri(uri: string): void
  /** A copy of the guild member's roles and join date, or null when the user is not a member. */
  member(userId: string): DiscordGuildMember | null
  /** A moderator changes the member's roles in Discord's own client, outside the bot's API calls. */
  removeRoleByHand(userId: string, roleId: string): void
  addRoleByHand(userId: string, roleId: string): void
  /** The member leaves the guild. */
  leaveGuild(userId: string): void
  /** The user joins the guild on their own (an invite link), with `roles` (default none). */
  addMember(userId: string, roles?: string[]): void
  /** Every access token the token endpoint issued, oldest first: a test looks for them where they must not be. */
  issuedAccessTokens: readonly string[]
  /** Every request, oldest first; `clearRequests` empties this same array. */
  requests: DiscordRecordedRequest[]
  clearRequests(): void
  failNext(rule: DiscordFailureRule): void
  clearFailures(): void
  /** The bot token the bot routes accept from now on (a rotated token: the old one answers 401). */
  setBotToken(token: string): void
  close(): Promise<void>
}

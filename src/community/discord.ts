import type * as Rest from '@discordjs/rest'
import { CodeChallengeMethod, OAuth2Client, OAuth2RequestError } from 'arctic'
import type { APIGuildMember, APIUser } from 'discord-api-types/v10'

/**
 * @discordjs/rest, with the undici and discord-api-types it brings, adds about 29 MiB to a process: it
 * is loaded on the first call to Discord, so a server without Discord configured never pays for it.
 */
type RestModule = typeof Rest
let restModule: Promise<RestModule> | null = null
const loadRest = () => (restModule ??= import('@discordjs/rest'))

/** Discord's JSON error codes the service acts on (RESTJSONErrorCodes in discord-api-types). */
const CODES = { unknownMember: 10007, unknownRole: 10011, missingPermissions: 50013, invalidOAuthToken: 50025 }

/** Discord's routes the service calls (Routes in discord-api-types), as @discordjs/rest takes them. */
const routes = {
  me: () => '/users/@me' as const,
  member: (guild: string, user: string) => `/guilds/${guild}/members/${user}` as const,
  memberRole: (guild: string, user: string, role: string) => `/guilds/${guild}/members/${user}/roles/${role}` as const,
}

/** What the community needs of Discord: the application (OAuth2) and the bot, in one server (guild). */
export type DiscordSettings = {
  botToken: string
  guildId: string
  clientId: string
  clientSecret: string
  /** `https://discord.com/api/v10`, or a stand-in's. */
  apiUrl: string
  authorizeUrl: string
  /** Where Discord sends the customer back: `{SERVER_URL}/api/community/discord/callback`. */
  redirectUri: string
  timeoutMs: number
}

/** The scopes asked of the customer: who they are, and leave to add them to the server. */
const DISCORD_SCOPES = ['identify', 'guilds.join'] as const

/**
 * Why a Discord call did not work, in the terms the service acts on:
 * - `rate_limited`: try again after `retryAfterMs`;
 * - `missing_permissions` (403, code 50013): the role sits above the bot's, or the bot lacks Manage Roles;
 * - `unknown_member` (404, 10007): not in the server (left, or never joined);
 * - `unknown_role` (404, 10011): the plan names a role the server does not have;
 * - `invalid_grant`: the customer's authorization code was refused (used, expired, forged);
 * - `invalid_user_token` (403, 50025, or 401 with the customer's token): the customer's token cannot add them;
 * - `unauthorized` (401 with the bot's token): the bot token is wrong or was reset;
 * - `unavailable`: Discord failed, timed out or could not be reached: try again later.
 */
export type DiscordFailureKind =
  | 'rate_limited'
  | 'missing_permissions'
  | 'unknown_member'
  | 'unknown_role'
  | 'invalid_grant'
  | 'invalid_user_token'
  | 'unauthorized'
  | 'unavailable'

export class DiscordFailure extends Error {
  override name = 'DiscordFailure'
  constructor(
    readonly kind: DiscordFailureKind,
    message: string,
    readonly retryAfterMs: number | null = null,
  ) {
    super(message)
  }
}

/**
 * Discord's error, classified; never carries a token (the SDKs' errors name routes, not headers). `rest`
 * is the loaded SDK, whose error classes tell its answers apart; without it only this module's own
 * failures and the OAuth client's are recognised.
 */
export const discordFailure = (error: unknown, as: 'bot' | 'user' = 'bot', rest?: RestModule): DiscordFailure => {
  if (error instanceof DiscordFailure) return error
  if (rest && error instanceof rest.RateLimitError)
    return new DiscordFailure('rate_limited', `Discord rate limit on ${error.route}`, Math.max(error.retryAfter, 1))
  if (rest && error instanceof rest.DiscordAPIError) {
    const code = Number(error.code)
    if (code === CODES.missingPermissions)
      return new DiscordFailure('missing_permissions', 'Discord: Missing Permissions (50013)')
    if (code === CODES.unknownMember) return new DiscordFailure('unknown_member', 'Discord: Unknown Member')
    if (code === CODES.unknownRole) return new DiscordFailure('unknown_role', 'Discord: Unknown Role')
    if (code === CODES.invalidOAuthToken)
      return new DiscordFailure('invalid_user_token', 'Discord: Invalid OAuth2 access token (50025)')
    if (error.status === 401)
      return as === 'user'
        ? new DiscordFailure('invalid_user_token', 'Discord refused the customer’s token (401)')
        : new DiscordFailure('unauthorized', 'Discord refused the bot token (401): check DISCORD_BOT_TOKEN')
    return new DiscordFailure(
      'unavailable',
      `Discord answered ${error.status} (${code}) on ${error.method} ${error.url}`,
    )
  }
  if (error instanceof OAuth2RequestError)
    return error.code === 'invalid_grant'
      ? new DiscordFailure('invalid_grant', 'Discord refused the authorization code')
      : new DiscordFailure('unavailable', `Discord's token endpoint refused: ${error.code}`)
  if (rest && error instanceof rest.HTTPError)
    return new DiscordFailure('unavailable', `Discord answered ${error.status}`)
  const message = error instanceof Error ? error.message : String(error)
  return new DiscordFailure('unavailable', `Discord could not be reached: ${message}`)
}

export type DiscordUser = { id: string; username: string }

/** `https://discord.com/api/v10` as @discordjs/rest takes it: the base and the version apart. */
const restBase = (apiUrl: string) => {
  const match = /^(.*)\/v(\d+)\/?$/.exec(apiUrl)
  return match ? { api: match[1]!, version: match[2]! } : { api: apiUrl.replace(/\/+$/, ''), version: '10' }
}

/**
 * The service's Discord client: the customer's side through OAuth2 (arctic's client, PKCE), the bot's
 * through @discordjs/rest. A 429 is not waited out here: it is thrown (`rate_limited`, with Discord's
 * `retry_after`) for the caller's job to come back then, and nothing is retried in the request.
 */
export const createDiscord = (settings: DiscordSettings) => {
  const base = restBase(settings.apiUrl)
  const options = {
    api: base.api,
    version: base.version,
    timeout: settings.timeoutMs,
    retries: 0,
    rejectOnRateLimit: () => true,
  }
  let client: Rest.REST | null = null
  const botOf = (rest: RestModule) => (client ??= new rest.REST(options).setToken(settings.botToken))
  const oauth = new OAuth2Client(settings.clientId, settings.clientSecret, settings.redirectUri)
  const tokenUrl = `${settings.apiUrl}/oauth2/token`
  const call = async <T>(run: (bot: Rest.REST) => Promise<T>, as: 'bot' | 'user' = 'bot'): Promise<T> => {
    const rest = await loadRest()
    const bot = botOf(rest)
    try {
      return await run(bot)
    } catch (error) {
      // @discordjs/rest forgets the bot token after any 401 (the customer's own, on /users/@me, too):
      // set it again, so the next attempt of a job tries it instead of failing for the process's life.
      if (error instanceof rest.DiscordAPIError && error.status === 401) bot.setToken(settings.botToken)
      throw discordFailure(error, as, rest)
    }
  }
  /** The OAuth client's calls: no SDK needed to tell its refusals apart. */
  const oauthCall = async <T>(run: () => Promise<T>): Promise<T> => {
    try {
      return await run()
    } catch (error) {
      throw discordFailure(error, 'user')
    }
  }
  const guild = settings.guildId

  return {
    guildId: guild,

    /** Where the customer approves: the state and the PKCE verifier are the caller's. */
    authorizationUrl: (state: string, verifier: string): string =>
      oauth
        .createAuthorizationURLWithPKCE(settings.authorizeUrl, state, CodeChallengeMethod.S256, verifier, [
          ...DISCORD_SCOPES,
        ])
        .toString(),

    /** The customer's access token for the code Discord sent back (used at once, never stored). */
    exchangeCode: (code: string, verifier: string): Promise<string> =>
      oauthCall(async () => (await oauth.validateAuthorizationCode(tokenUrl, code, verifier)).accessToken()),

    /** Who the token belongs to. */
    userOf: (accessToken: string): Promise<DiscordUser> =>
      call(async (bot) => {
        const user = (await bot.get(routes.me(), {
          auth: false,
          headers: { Authorization: `Bearer ${accessToken}` },
        })) as APIUser
        return { id: user.id, username: user.username }
      }, 'user'),

    /** The customer's token is done with: Discord forgets it (best effort, the token expires anyway). */
    revokeUserToken: async (accessToken: string): Promise<void> => {
      await oauth.revokeToken(`${tokenUrl}/revoke`, accessToken).catch(() => undefined)
    },

    /** Add the customer to the server with their token: `added`, or `member` when they were in it already. */
    addMember: (userId: string, accessToken: string): Promise<'added' | 'member'> =>
      call(async (bot) => {
        const answer = await bot.put(routes.member(guild, userId), { body: { access_token: accessToken } })
        // 201 carries the new member; 204 (already a member) has no body.
        return answer && typeof answer === 'object' && 'user' in answer ? 'added' : 'member'
      }, 'user'),

    /** The member's roles, or null when they are not in the server. */
    rolesOf: (userId: string): Promise<string[] | null> =>
      call(async (bot) => {
        try {
          return ((await bot.get(routes.member(guild, userId))) as APIGuildMember).roles
        } catch (error) {
          if (error instanceof (await loadRest()).DiscordAPIError && Number(error.code) === CODES.unknownMember)
            return null
          throw error
        }
      }),

    addRole: (userId: string, roleId: string, reason: string): Promise<void> =>
      call(async (bot) => {
        await bot.put(routes.memberRole(guild, userId, roleId), { reason })
      }),

    removeRole: (userId: string, roleId: string, reason: string): Promise<void> =>
      call(async (bot) => {
        await bot.delete(routes.memberRole(guild, userId, roleId), { reason })
      }),

    /** Remove the member from the server (DISCORD_KICK_ON_REVOKE). */
    kick: (userId: string, reason: string): Promise<void> =>
      call(async (bot) => {
        await bot.delete(routes.member(guild, userId), { reason })
      }),
  }
}

export type Discord = ReturnType<typeof createDiscord>

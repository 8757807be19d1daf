/**
 * The Discord stand-in: Discord's OAuth2 sign-in (consent page, token, revocation, `users/@me`) and the
 * bot's guild API (add a member, give and take roles, list roles) for integration tests, browser
 * scenarios and offline development of the "community role" plan benefit. The real `@discordjs/rest`
 * and an OAuth2 client (arctic) talk to it over HTTP; its consent page lets a developer sign in.
 */
export { startDiscordStandIn } from './server'
export { DEFAULT_ROLES, DEFAULT_USERS } from './guild'

export type {
  AuthorizationKind,
  DiscordFailureRule,
  DiscordGuildMember,
  DiscordRecordedRequest,
  DiscordRoleSeed,
  DiscordStandIn,
  DiscordStandInOptions,
  DiscordUserSeed,
} from './types'

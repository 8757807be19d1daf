import type { APIGuildMember, APIRole, APIUser, GuildMemberFlags, RoleFlags, UserFlags } from 'discord-api-types/v10'

import type { DiscordHost, StandInMember, StandInRole, StandInUser } from './context'

/** discord-api-types types its flag bitfields as enums without a member for "none set", which is 0. */
const NO_USER_FLAGS = 0 as UserFlags
const NO_MEMBER_FLAGS = 0 as GuildMemberFlags
const NO_ROLE_FLAGS = 0 as RoleFlags

/** Discord's ISO 8601 timestamps carry microseconds and an explicit offset: `2025-03-01T12:00:00.000000+00:00`. */
const discordTimestamp = (date: Date): string => date.toISOString().replace('Z', '000+00:00')

/**
 * A user as `/users/@me` answers for an OAuth2 token with the `identify` scope (no `email` without the
 * `email` scope), and as members embed it. Discriminators are "0" since pomelo usernames.
 */
export const userObject = (user: StandInUser): APIUser => ({
  id: user.id,
  username: user.username,
  avatar: null,
  discriminator: '0',
  public_flags: NO_USER_FLAGS,
  flags: NO_USER_FLAGS,
  ...(user.bot ? { bot: true } : {}),
  banner: null,
  accent_color: null,
  global_name: user.globalName,
  avatar_decoration_data: null,
  mfa_enabled: false,
  locale: 'en-US',
  premium_type: 0,
})

/** The user object members embed has no account-private fields (locale, mfa_enabled, premium_type). */
const publicUserObject = (user: StandInUser): APIUser => {
  const { mfa_enabled: _mfa, locale: _locale, premium_type: _premium, ...shown } = userObject(user)
  return shown
}

export const memberObject = (host: DiscordHost, member: StandInMember): APIGuildMember => {
  const user = host.users.get(member.userId)
  if (!user) throw new Error(`member ${member.userId} has no user`)
  return {
    avatar: null,
    banner: null,
    communication_disabled_until: null,
    flags: NO_MEMBER_FLAGS,
    joined_at: discordTimestamp(member.joinedAt),
    nick: member.nick,
    pending: false,
    premium_since: null,
    roles: [...member.roles],
    user: publicUserObject(user),
    mute: member.mute,
    deaf: member.deaf,
  }
}

export const roleObject = (host: DiscordHost, role: StandInRole): APIRole => ({
  id: role.id,
  name: role.name,
  permissions: role.permissions,
  position: role.position,
  color: 0,
  colors: { primary_color: 0, secondary_color: null, tertiary_color: null },
  hoist: false,
  managed: role.managed,
  mentionable: false,
  icon: null,
  unicode_emoji: null,
  flags: NO_ROLE_FLAGS,
  // A bot's role says whose it is; the others carry no tags.
  ...(role.managed ? { tags: { bot_id: host.botUserId } } : {}),
})

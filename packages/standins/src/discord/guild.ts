import type { DiscordHost, StandInMember, StandInRole, StandInUser } from './context'
import { FIXED_IDS, SNOWFLAKE } from './snowflakes'
import type { DiscordRoleSeed, DiscordUserSeed } from './types'

/** Who can sign in when the options name nobody: a buyer of the service and someone who is not. */
export const DEFAULT_USERS: DiscordUserSeed[] = [
  { id: FIXED_IDS.buyer, username: 'discord-buyer', globalName: 'Discord Buyer' },
  { id: FIXED_IDS.friend, username: 'discord-friend', globalName: 'Discord Friend' },
]

/** The roles a plan can grant when the options name none; both below the bot's, so it can manage them. */
export const DEFAULT_ROLES: DiscordRoleSeed[] = [
  { id: FIXED_IDS.buyersRole, name: 'Buyers', position: 1 },
  { id: FIXED_IDS.ultimateRole, name: 'Ultimate', position: 2 },
]

export const DEFAULT_BOT_ROLE_POSITION = 10

/**
 * What a bot installed for this feature is granted, and what Discord checks for each call: create
 * invites (to add members with `guilds.join`), kick, mute and deafen, manage nicknames and roles.
 */
const BOT_PERMISSIONS = String((1n << 0n) | (1n << 1n) | (1n << 22n) | (1n << 23n) | (1n << 27n) | (1n << 28n))

const checkedId = (id: string | undefined, host: DiscordHost, taken: Map<string, unknown>): string => {
  const chosen = id ?? host.nextId()
  if (!SNOWFLAKE.test(chosen)) throw new Error(`${chosen} is not a snowflake (17 to 20 digits)`)
  if (taken.has(chosen)) throw new Error(`${chosen} is taken`)
  return chosen
}

/** Usernames are unique on Discord since the 2023 change that dropped discriminators. */
export const addUser = (host: DiscordHost, seed: DiscordUserSeed, bot = false): StandInUser => {
  if ([...host.users.values()].some((user) => user.username === seed.username)) {
    throw new Error(`The username ${seed.username} is taken`)
  }
  const user = {
    id: checkedId(seed.id, host, host.users),
    username: seed.username,
    globalName: seed.globalName ?? null,
    bot,
  }
  host.users.set(user.id, user)
  return user
}

/** Without a position, a new role goes just above the guild's other unmanaged roles. */
export const addRole = (host: DiscordHost, seed: DiscordRoleSeed, managed = false): StandInRole => {
  const unmanaged = [...host.roles.values()].filter((role) => !role.managed)
  const role: StandInRole = {
    id: checkedId(seed.id, host, host.roles),
    name: seed.name,
    position: seed.position ?? Math.max(0, ...unmanaged.map((existing) => existing.position)) + 1,
    managed,
    permissions: managed ? BOT_PERMISSIONS : '0',
  }
  host.roles.set(role.id, role)
  return role
}

/** `@everyone` (id = the guild's, position 0) and the bot's own role, which Discord makes with the guild and bot. */
export const seedGuild = (
  host: DiscordHost,
  options: { users: DiscordUserSeed[]; roles: DiscordRoleSeed[]; botRolePosition: number },
): void => {
  host.roles.set(host.guildId, { id: host.guildId, name: '@everyone', position: 0, managed: false, permissions: '0' })
  addRole(host, { id: host.botRoleId, name: 'Stand-in Bot', position: options.botRolePosition }, true)
  for (const role of options.roles) addRole(host, role)
  addUser(host, { id: host.botUserId, username: 'stand-in-bot', globalName: 'Stand-in Bot' }, true)
  for (const user of options.users) addUser(host, user)
  joinGuild(host, host.botUserId, [host.botRoleId])
}

/** The position of a member's highest role; 0, `@everyone`'s, for a member with none. */
export const highestPosition = (host: DiscordHost, member: StandInMember | undefined): number =>
  Math.max(0, ...(member?.roles ?? []).map((id) => host.roles.get(id)?.position ?? 0))

/** The bot can only manage roles strictly below its own highest role, and never a managed one. */
export const botCanManage = (host: DiscordHost, role: StandInRole): boolean =>
  !role.managed && role.position < highestPosition(host, host.members.get(host.botUserId))

/** A role a member can hold: `@everyone` is everybody's already and is never listed among a member's roles. */
export const assignableRole = (host: DiscordHost, roleId: string): StandInRole | undefined =>
  roleId === host.guildId ? undefined : host.roles.get(roleId)

export const joinGuild = (
  host: DiscordHost,
  userId: string,
  roles: string[],
  fields: Partial<Pick<StandInMember, 'nick' | 'mute' | 'deaf'>> = {},
): StandInMember => {
  const member: StandInMember = {
    userId,
    roles: [...new Set(roles)],
    joinedAt: host.now(),
    nick: fields.nick ?? null,
    mute: fields.mute ?? false,
    deaf: fields.deaf ?? false,
  }
  host.members.set(userId, member)
  return member
}

export const giveRole = (member: StandInMember, roleId: string): void => {
  if (!member.roles.includes(roleId)) member.roles.push(roleId)
}

export const takeRole = (member: StandInMember, roleId: string): void => {
  member.roles = member.roles.filter((id) => id !== roleId)
}

/** What the test controls act on; unlike the API they throw, since a wrong id there is a bug in the test. */
export const byHand = {
  member: (host: DiscordHost, userId: string): StandInMember => {
    const member = host.members.get(userId)
    if (!member) throw new Error(`${userId} is not a member of the guild`)
    return member
  },
  role: (host: DiscordHost, roleId: string): StandInRole => {
    const role = assignableRole(host, roleId)
    if (!role) throw new Error(`${roleId} is not a role members can hold`)
    return role
  },
  user: (host: DiscordHost, userId: string): StandInUser => {
    const user = host.users.get(userId)
    if (!user) throw new Error(`No user ${userId}`)
    return user
  },
}

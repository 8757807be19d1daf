/**
 * Import after billing-env in a community test: starts the Discord stand-in with two plan roles the bot
 * manages and one above it, and points the DISCORD_* settings at it before anything reads the config.
 */
import { afterAll } from 'vitest'

import { startDiscordStandIn } from '@starter-kit/standins/discord'

export const DISCORD = {
  botToken: 'standin-test-bot-token-0123456789',
  clientId: '1400000000000000001',
  clientSecret: 'standin-test-client-secret',
  guildId: '1400000000000000100',
  roles: { buyers: '1400000000000000201', ultimate: '1400000000000000202', aboveBot: '1400000000000000299' },
}
const CALLBACK = 'http://localhost:3000/api/community/discord/callback'

export const discord = await startDiscordStandIn({
  botToken: DISCORD.botToken,
  clientId: DISCORD.clientId,
  clientSecret: DISCORD.clientSecret,
  guildId: DISCORD.guildId,
  redirectUris: [CALLBACK],
  botRolePosition: 10,
  roles: [
    { id: DISCORD.roles.buyers, name: 'Buyers', position: 1 },
    { id: DISCORD.roles.ultimate, name: 'Ultimate', position: 2 },
    { id: DISCORD.roles.aboveBot, name: 'Moderators', position: 20 },
  ],
  users: [],
})

Object.assign(process.env, {
  DISCORD_BOT_TOKEN: DISCORD.botToken,
  DISCORD_GUILD_ID: DISCORD.guildId,
  DISCORD_CLIENT_ID: DISCORD.clientId,
  DISCORD_CLIENT_SECRET: DISCORD.clientSecret,
  DISCORD_API_URL: discord.apiUrl,
  DISCORD_AUTHORIZE_URL: discord.authorizeUrl,
  DISCORD_TIMEOUT_MS: '2000',
})

afterAll(() => discord.close())

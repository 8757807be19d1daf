import type { Config, Plugin } from 'payload'

import { CommunityGrants, DiscordLinks } from '../collections/CommunityCollections'
import {
  communityCallbackEndpoint,
  communityConnectEndpoint,
  communityDisconnectEndpoint,
  communityStatusEndpoint,
  staffCommunitySyncEndpoint,
} from '../endpoints/community'
import { optionalRuntimeOf, withRuntime } from '../src/config/runtime'
import { createDiscord, type Discord } from '../src/community/discord'
import { checkCommunityTask, syncCommunityRolesTask } from '../src/community/jobs'
import { CALLBACK_PATH } from '../src/community/link'
import { queueCommunitySyncOnLicenseChange } from '../src/licensing/entitlement-changes'
import type { CommunityRuntime } from '../src/community/runtime'
import { addCollectionHooks } from './extend'

export type CommunityOptions = {
  /** All four set, or the feature is off (production refuses a half configuration at start-up). */
  discord: {
    botToken?: string
    guildId?: string
    clientId?: string
    clientSecret?: string
    apiUrl: string
    authorizeUrl: string
    kickOnRevoke: boolean
    syncMinutes: number
    timeoutMs: number
  }
  serverUrl: string
  productName: string
  /** Signs the connect cookie (derived from PAYLOAD_SECRET). */
  secret: string
  retryDelayMs: number
}

/**
 * Community access (docs/COMMUNITY.md): a plan's Discord role (`plans.discordRoleId`) for every holder
 * of an active license of it, seat members included. The customer connects Discord from the dashboard;
 * the bot adds them to the server and gives the role; a change of what they are entitled to queues a
 * sync, and a periodic check gives back what was removed by hand. The collections are always in the
 * schema; without Discord's settings nothing else is installed and the dashboard says nothing of it.
 * After licensing and teams: it hooks the licenses collection.
 */
export const communityPlugin =
  (options: CommunityOptions): Plugin =>
  (config: Config): Config => {
    const { botToken, guildId, clientId, clientSecret } = options.discord
    let runtime: CommunityRuntime | undefined
    if (botToken && guildId && clientId && clientSecret) {
      let client: Discord | null = null
      const discord = () =>
        (client ??= createDiscord({
          botToken,
          guildId,
          clientId,
          clientSecret,
          apiUrl: options.discord.apiUrl,
          authorizeUrl: options.discord.authorizeUrl,
          redirectUri: `${options.serverUrl}${CALLBACK_PATH}`,
          timeoutMs: options.discord.timeoutMs,
        }))
      runtime = {
        discord,
        deps: {
          discord,
          kickOnRevoke: options.discord.kickOnRevoke,
          productName: options.productName,
          serverUrl: options.serverUrl,
        },
        secret: options.secret,
        secureCookies: options.serverUrl.startsWith('https://'),
        syncMinutes: options.discord.syncMinutes,
      }
    }
    const current = () => runtime
    const collections = addCollectionHooks(config, {
      plugin: 'communityPlugin',
      slug: 'licenses',
      hooks: { afterChange: [queueCommunitySyncOnLicenseChange] },
    })
    if (optionalRuntimeOf({ config }, 'community')) throw new Error('communityPlugin is in the config twice')
    return {
      ...config,
      ...(runtime ? { custom: withRuntime(config, 'community', runtime) } : {}),
      collections: [...collections, DiscordLinks, CommunityGrants],
      // Always routed: without Discord's settings each answers 404 `not_found`.
      endpoints: [
        ...(config.endpoints ?? []),
        communityStatusEndpoint,
        communityConnectEndpoint,
        communityCallbackEndpoint,
        communityDisconnectEndpoint,
        staffCommunitySyncEndpoint,
      ],
      jobs: {
        ...config.jobs,
        tasks: [
          ...(config.jobs?.tasks ?? []),
          syncCommunityRolesTask(current, options.retryDelayMs),
          checkCommunityTask(current, Boolean(runtime)),
        ],
      },
    }
  }

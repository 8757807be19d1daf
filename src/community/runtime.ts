import type { Discord } from './discord'
import type { CommunityDeps } from './sync'

/**
 * What communityPlugin keeps in `config.custom.community` when Discord is configured (absent otherwise:
 * the feature is off and nothing queues a sync): for the endpoints, the dashboard and other plugins' hooks.
 */
export type CommunityRuntime = {
  discord: () => Discord
  deps: CommunityDeps
  /** Signs the connect cookie. */
  secret: string
  secureCookies: boolean
  /** Each linked account is checked against Discord at least this often. */
  syncMinutes: number
}

declare module '../config/runtime' {
  interface PluginRuntimes {
    community: CommunityRuntime
  }
}

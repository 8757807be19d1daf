import type { RecoverySettings } from './states'

/** What recoveryPlugin keeps in `config.custom.recovery` for the webhook, the job, the pages and the endpoints. */
export type RecoveryRuntime = {
  settings: RecoverySettings
  serverUrl: string
  productName: string
}

declare module '../config/runtime' {
  interface PluginRuntimes {
    recovery: RecoveryRuntime
  }
}

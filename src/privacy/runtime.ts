import type { DeletionSettings } from './deletion'
import type { ErasureDeps } from './erasure'

/** What privacyPlugin keeps in `config.custom.privacy` for the dashboard's forms, the cancel page and the erasure's callers. */
type PrivacyRuntime = { deletion: DeletionSettings; erasure: ErasureDeps }

declare module '../config/runtime' {
  interface PluginRuntimes {
    privacy: PrivacyRuntime
  }
}

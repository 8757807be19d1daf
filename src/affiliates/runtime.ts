import type { AffiliateSettings } from './states'

/** What affiliatesPlugin keeps in `config.custom.affiliates`: the host, checkout, pages and jobs read it. */
export type AffiliatesRuntime = {
  settings: AffiliateSettings
  serverUrl: string
  productName: string
}

declare module '../config/runtime' {
  interface PluginRuntimes {
    affiliates: AffiliatesRuntime
  }
}

import type { DownloadSettings } from './download'
import type { CodeHostProvider } from './repo-access'
import type { TemplateDownloadSettings } from './templates'

/** What deliveryPlugin keeps in `config.custom.delivery` for pages, server actions and the staff plugin. */
export type DeliveryRuntime = {
  downloads: DownloadSettings
  templateDownloads: TemplateDownloadSettings
  codeHost: CodeHostProvider
}

declare module '../config/runtime' {
  interface PluginRuntimes {
    delivery: DeliveryRuntime
  }
}

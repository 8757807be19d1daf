import type { Config, Payload } from 'payload'

import type { OAuthSettings } from '../auth/oauth'
import type { BillingRuntime } from '../billing/runtime'
import type { ContentRuntime } from '../content/revalidate'
import type { DownloadSettings } from '../delivery/download'
import type { CodeHostProvider } from '../delivery/repo-access'
import type { TemplateDownloadSettings } from '../delivery/templates'
import type { CatalogRuntime } from '../plans/revalidate'

/**
 * What each plugin keeps in `config.custom` for code outside its endpoints (pages, server actions,
 * hooks, another plugin): one typed entry per plugin, written by `withRuntime` and read by
 * `runtimeOf`, so no reader casts an untyped value.
 */
export type PluginRuntimes = {
  accounts: { oauth: OAuthSettings }
  billing: BillingRuntime
  catalog: CatalogRuntime
  content: ContentRuntime
  delivery: { downloads: DownloadSettings; templateDownloads: TemplateDownloadSettings; codeHost: CodeHostProvider }
}

export type PluginName = keyof PluginRuntimes

/** The config's `custom` with this plugin's runtime added. */
export const withRuntime = <Name extends PluginName>(config: Config, name: Name, runtime: PluginRuntimes[Name]): Config['custom'] => ({
  ...config.custom,
  [name]: runtime,
})

/** A plugin's runtime, or undefined when the plugin is not in the config (for readers that can do without it). */
export const optionalRuntimeOf = <Name extends PluginName>(source: { config: Pick<Config, 'custom'> }, name: Name): PluginRuntimes[Name] | undefined =>
  (source.config.custom as Partial<PluginRuntimes> | undefined)?.[name]

/** A plugin's runtime; throws, naming the plugin, when it is not in the config. */
export const runtimeOf = <Name extends PluginName>(source: Pick<Payload, 'config'> | { config: Pick<Config, 'custom'> }, name: Name): PluginRuntimes[Name] => {
  const runtime = optionalRuntimeOf(source, name)
  if (!runtime) throw new Error(`the ${name} plugin is not in the Payload config`)
  return runtime
}

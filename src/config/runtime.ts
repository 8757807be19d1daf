import type { Config, Payload } from 'payload'

/**
 * What each plugin keeps in `config.custom` for code outside its endpoints (pages, server actions,
 * hooks, another plugin): one typed entry per plugin, written by `withRuntime` and read by
 * `runtimeOf`, so no reader casts an untyped value. Each capability declares its own entry beside
 * its runtime's type (`declare module '../config/runtime' { interface PluginRuntimes { ... } }`), so
 * this module imports none of them: accounts in src/auth/oauth.ts, billing in src/billing/runtime.ts,
 * catalog in src/plans/revalidate.ts, content in src/content/revalidate.ts, delivery in src/delivery/runtime.ts.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- empty here, filled by each capability's declaration merging
export interface PluginRuntimes {}

export type PluginName = keyof PluginRuntimes

/** The config's `custom` with this plugin's runtime added. */
export const withRuntime = <Name extends PluginName>(
  config: Config,
  name: Name,
  runtime: PluginRuntimes[Name],
): Config['custom'] => ({
  ...config.custom,
  [name]: runtime,
})

/** A plugin's runtime, or undefined when the plugin is not in the config (for readers that can do without it). */
export const optionalRuntimeOf = <Name extends PluginName>(
  source: { config: Pick<Config, 'custom'> },
  name: Name,
): PluginRuntimes[Name] | undefined => (source.config.custom as Partial<PluginRuntimes> | undefined)?.[name]

/** A plugin's runtime; throws, naming the plugin, when it is not in the config. */
export const runtimeOf = <Name extends PluginName>(
  source: Pick<Payload, 'config'> | { config: Pick<Config, 'custom'> },
  name: Name,
): PluginRuntimes[Name] => {
  const runtime = optionalRuntimeOf(source, name)
  if (!runtime) throw new Error(`the ${name} plugin is not in the Payload config`)
  return runtime
}

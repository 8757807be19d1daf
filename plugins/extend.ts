import type { CollectionConfig, Config } from 'payload'

type Hooks = NonNullable<CollectionConfig['hooks']>

/**
 * Adds hooks to a collection another plugin made. Throws at config time when that collection is not
 * in the config yet (a plugin left out or put after this one), where a `.map()` by slug would
 * silently add nothing and the hooks would never run.
 */
export const addCollectionHooks = (
  config: Config,
  { plugin, slug, hooks }: { plugin: string; slug: string; hooks: { [K in keyof Hooks]?: NonNullable<Hooks[K]> } },
): CollectionConfig[] => {
  const collections = config.collections ?? []
  if (!collections.some((collection) => collection.slug === slug)) {
    throw new Error(`${plugin} extends the "${slug}" collection, which is not in the config: add the plugin that makes it before ${plugin}`)
  }
  return collections.map((collection) => {
    if (collection.slug !== slug) return collection
    const merged: Hooks = { ...collection.hooks }
    for (const [name, added] of Object.entries(hooks) as [keyof Hooks, unknown[]][]) {
      ;(merged as Record<string, unknown[]>)[name] = [...((collection.hooks?.[name] as unknown[] | undefined) ?? []), ...added]
    }
    return { ...collection, hooks: merged }
  })
}

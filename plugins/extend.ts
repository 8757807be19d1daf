import type { CollectionConfig, Config } from 'payload'

type Hooks = NonNullable<CollectionConfig['hooks']>
type Endpoints = Exclude<CollectionConfig['endpoints'], false | undefined>

const requireCollection = (collections: CollectionConfig[], plugin: string, slug: string): CollectionConfig[] => {
  if (!collections.some((collection) => collection.slug === slug)) {
    throw new Error(
      `${plugin} extends the "${slug}" collection, which is not in the config: add the plugin that makes it before ${plugin}`,
    )
  }
  return collections
}

/**
 * Adds endpoints to a collection another plugin made (Payload routes `/api/<slug>/...` only to the
 * collection's own endpoints), with the same config-time check as addCollectionHooks.
 */
export const addCollectionEndpoints = (
  collections: CollectionConfig[],
  { plugin, slug, endpoints }: { plugin: string; slug: string; endpoints: Endpoints },
): CollectionConfig[] =>
  requireCollection(collections, plugin, slug).map((collection) =>
    collection.slug === slug
      ? { ...collection, endpoints: [...(collection.endpoints || []), ...endpoints] }
      : collection,
  )

/**
 * Adds hooks to a collection another plugin made. Throws at config time when that collection is not
 * in the config yet (a plugin left out or put after this one), where a `.map()` by slug would
 * silently add nothing and the hooks would never run.
 */
export const addCollectionHooks = (
  config: Config,
  { plugin, slug, hooks }: { plugin: string; slug: string; hooks: { [K in keyof Hooks]?: NonNullable<Hooks[K]> } },
): CollectionConfig[] => {
  const collections = requireCollection(config.collections ?? [], plugin, slug)
  return collections.map((collection) => {
    if (collection.slug !== slug) return collection
    const merged: Hooks = { ...collection.hooks }
    for (const [name, added] of Object.entries(hooks) as [keyof Hooks, unknown[]][]) {
      ;(merged as Record<string, unknown[]>)[name] = [
        ...((collection.hooks?.[name] as unknown[] | undefined) ?? []),
        ...added,
      ]
    }
    return { ...collection, hooks: merged }
  })
}

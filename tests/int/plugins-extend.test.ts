import type { CollectionAfterChangeHook, CollectionConfig, Config } from 'payload'
import { describe, expect, it } from 'vitest'

import { deliveryPlugin } from '../../plugins/delivery'
import { addCollectionHooks } from '../../plugins/extend'

/** A plugin that adds hooks to another plugin's collection fails at config time when it is missing. */
const hook: CollectionAfterChangeHook = ({ doc }) => doc
const existing: CollectionAfterChangeHook = ({ doc }) => doc
const licenses: CollectionConfig = { slug: 'licenses', fields: [], hooks: { afterChange: [existing] } }

describe('addCollectionHooks', () => {
  it("appends to the collection's own hooks and leaves the others alone", () => {
    const users: CollectionConfig = { slug: 'users', fields: [] }
    const collections = addCollectionHooks({ collections: [users, licenses] } as Config, {
      plugin: 'test',
      slug: 'licenses',
      hooks: { afterChange: [hook] },
    })
    expect(collections[0]).toBe(users)
    expect(collections[1]?.hooks?.afterChange).toEqual([existing, hook])
    expect(licenses.hooks?.afterChange).toEqual([existing])
  })

  it('throws, naming the plugin and the collection, when the collection is not there', () => {
    expect(() =>
      addCollectionHooks({ collections: [] } as unknown as Config, {
        plugin: 'testPlugin',
        slug: 'licenses',
        hooks: { afterChange: [hook] },
      }),
    ).toThrow(/testPlugin extends the "licenses" collection, which is not in the config/)
  })

  it('the delivery plugin refuses a config without the licensing plugin before it', async () => {
    const plugin = deliveryPlugin({
      serverUrl: 'http://localhost:3000',
      secret: 'x'.repeat(32),
      releasesDir: '/tmp/releases',
      templatesDir: '/tmp/templates',
      downloadUrlTtlSeconds: 300,
      s3: null,
      codeHost: null,
      retryDelayMs: 1000,
    })
    await expect(Promise.resolve().then(() => plugin({ collections: [] } as unknown as Config))).rejects.toThrow(
      /deliveryPlugin extends the "licenses" collection/,
    )
    const config = await plugin({ collections: [licenses] } as unknown as Config)
    expect(config.collections?.find((collection) => collection.slug === 'licenses')?.hooks?.afterChange).toHaveLength(2)
  })
})

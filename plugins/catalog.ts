import type { Config, Plugin } from 'payload'

import { Plans } from '../collections/Plans'
import { withRuntime } from '../src/config/runtime'
import type { CatalogRuntime } from '../src/plans/revalidate'

export type CatalogOptions = {
  /** Next's revalidateTag (payload.config.ts): a changed plan expires the pricing table's cached plans at once. */
  revalidate: CatalogRuntime['revalidate']
}

/** Catalog: the plans customers buy, seeded from configuration (see src/plans/seed.ts). */
export const catalogPlugin =
  (options: CatalogOptions): Plugin =>
  (config: Config): Config => ({
    ...config,
    // Server-only: the plans' hooks reach the host's revalidation here (src/plans/revalidate.ts).
    custom: withRuntime(config, 'catalog', { revalidate: options.revalidate }),
    collections: [...(config.collections ?? []), Plans],
  })

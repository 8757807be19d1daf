import type { Config, Plugin } from 'payload'

import { Plans } from '../collections/Plans'

/** Catalog: the plans customers buy, seeded from configuration (see src/plans/seed.ts). */
export const catalogPlugin =
  (): Plugin =>
  (config: Config): Config => ({
    ...config,
    collections: [...(config.collections ?? []), Plans],
  })

import type { CollectionAfterChangeHook, CollectionAfterDeleteHook, Payload } from 'payload'

import { expireTag, type RevalidateTag } from '../cache/expire'
import { optionalRuntimeOf } from '../config/runtime'
import type { Plan } from '../payload-types'

/**
 * The Next.js cache tag of the active plans the pricing table reads (`unstable_cache` in
 * src/app/(frontend)/_components/pricing-data.ts).
 */
export const PLANS_TAG = 'catalog:plans'

/** Where catalogPlugin keeps the host's revalidateTag (`config.custom.catalog`). */
export type CatalogRuntime = { revalidate: RevalidateTag<typeof PLANS_TAG> }

declare module '../config/runtime' {
  interface PluginRuntimes {
    catalog: CatalogRuntime
  }
}

/** Expire the pricing table's cached plans (src/cache/expire.ts). */
const revalidatePlans = (payload: Payload): void =>
  expireTag(payload, optionalRuntimeOf(payload, 'catalog')?.revalidate, PLANS_TAG)

/** Every change to a plan (created, edited, deactivated, deleted) expires the cached plans: afterChange and afterDelete. */
export const expirePlans: CollectionAfterChangeHook<Plan> & CollectionAfterDeleteHook<Plan> = ({ doc, req }) => {
  revalidatePlans(req.payload)
  return doc
}

import type { Payload } from 'payload'

import { expirePages } from './pages'

/** Expires Next's cached reads under a tag: Next's revalidateTag, which payload.config.ts gives the plugins that need it. */
export type RevalidateTag<Tag extends string = string> = (tag: Tag) => void

/**
 * Expire the cached pages under `tag` through the function the host gave a plugin, so that no domain
 * imports Next. Inside Next's request handling (the admin and the REST API run there) it takes effect
 * at once; elsewhere (the start-up seeding and import, the jobs worker, scripts) there is no Next
 * cache to reach, the call fails and is logged at debug, and the pages' 60-second ceiling brings them
 * up to date (as it does on the other instances). The host's own copies of the pages
 * (src/server/page-cache.ts) are dropped in every case.
 */
export const expireTag = <Tag extends string>(
  payload: Payload,
  revalidate: RevalidateTag<Tag> | undefined,
  tag: Tag,
): void => {
  try {
    revalidate?.(tag)
  } catch (error) {
    payload.logger.debug(`revalidate ${tag}: ${(error as Error).message}`)
  } finally {
    expirePages()
  }
}

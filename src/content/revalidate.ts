import { revalidateTag } from 'next/cache'

import type { ContentTag } from './cache-tags'

type Logger = { debug: (message: string) => void }

/**
 * Expire the cached pages of one kind of content now. Works inside Next's request handling (the
 * admin and the REST API run there); elsewhere (the start-up import, the jobs worker, scripts) there
 * is no Next cache to reach, and the pages' 60-second ceiling brings them up to date.
 */
export const revalidateContent = (tag: ContentTag, logger: Logger): void => {
  try {
    revalidateTag(tag, { expire: 0 })
  } catch (error) {
    logger.debug(`revalidate ${tag}: ${(error as Error).message}`)
  }
}

import type { Payload } from 'payload'

import type { ContentTag } from './cache-tags'
import { optionalRuntimeOf } from '../config/runtime'

/** Expires the cached pages of one kind of content: given by the host to contentPlugin (`revalidate`). */
export type RevalidateContent = (tag: ContentTag) => void

/** Where contentPlugin keeps the host's function (`config.custom.content`). */
export type ContentRuntime = { revalidate: RevalidateContent }

/**
 * Expire the cached pages of one kind of content, through the function the host gave contentPlugin
 * (Next's revalidateTag, in payload.config.ts), so the content domain never imports Next. Inside
 * Next's request handling (the admin and the REST API run there) it takes effect at once; elsewhere
 * (the start-up import, the jobs worker, scripts) there is no Next cache to reach, the call fails and
 * is logged at debug, and the pages' 60-second ceiling brings them up to date.
 */
export const revalidateContent = (payload: Payload, tag: ContentTag): void => {
  const runtime = optionalRuntimeOf(payload, 'content')
  try {
    runtime?.revalidate(tag)
  } catch (error) {
    payload.logger.debug(`revalidate ${tag}: ${(error as Error).message}`)
  }
}

import type { Payload } from 'payload'

import type { RevalidateTag } from '../cache/expire'
import type { ContentTag } from './cache-tags'
import { expireTag } from '../cache/expire'
import { optionalRuntimeOf } from '../config/runtime'

/** Expires the cached pages of one kind of content: given by the host to contentPlugin (`revalidate`). */
export type RevalidateContent = RevalidateTag<ContentTag>

/** Where contentPlugin keeps the host's function (`config.custom.content`). */
type ContentRuntime = { revalidate: RevalidateContent }

declare module '../config/runtime' {
  interface PluginRuntimes {
    content: ContentRuntime
  }
}

/** Expire the cached pages of one kind of content (src/cache/expire.ts), through the function the host gave contentPlugin. */
export const revalidateContent = (payload: Payload, tag: ContentTag): void =>
  expireTag(payload, optionalRuntimeOf(payload, 'content')?.revalidate, tag)

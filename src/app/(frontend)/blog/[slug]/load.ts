import { draftMode } from 'next/headers'
import { cache } from 'react'

import type { PostDetail } from '../../../../content/queries'
import { getDraftPost, getPost, staffSession } from '../../../_lib/content'

const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/

export type LoadedPost = { post: PostDetail; preview: boolean }

/**
 * The post this request shows: the published one from the cache, or, in draft mode with a staff
 * session Payload verifies, the newest draft (uncached). Draft mode alone (a valid or forged
 * cookie) shows nothing more to anyone else. Shared by the page, its metadata and its image.
 */
export const loadPost = cache(async (slug: string): Promise<LoadedPost | null> => {
  if (!SLUG.test(slug) || slug.length > 96) return null
  const { isEnabled } = await draftMode()
  if (isEnabled) {
    const staff = await staffSession()
    if (staff) {
      const post = await getDraftPost(slug, staff)
      return post ? { post, preview: true } : null
    }
  }
  const post = await getPost(slug)
  return post ? { post, preview: false } : null
})

import { unstable_cache } from 'next/cache'

import { isStaffUser } from '../../access/roles'
import { CONTENT_TAGS } from '../../content/cache-tags'
import {
  type ChangelogItem,
  findChangelog,
  findPost,
  findPostIndex,
  findPostPage,
  type PostDetail,
  type PostIndexEntry,
  type PostListPage,
  tagCounts,
  type TagCount,
} from '../../content/queries'
import type { User } from '../../payload-types'
import { getPayloadClient, pageAuthHeaders } from './session'

/**
 * What /blog, /changelog, the feed and the sitemap read: the content queries (src/content/queries.ts)
 * with the published reads in Next's cache (`unstable_cache`) under the content's tag. The
 * collections' hooks expire the tag on publish (contentPlugin's `revalidate`, which payload.config.ts
 * gives Next's revalidateTag), and `revalidate: 60` bounds how stale another server instance (whose
 * cache the hook cannot reach) may be. Drafts are read only for a verified staff session in draft
 * mode, never cached.
 */
const CEILING_SECONDS = 60

/** One page of published posts, newest first, optionally of one tag. */
export const listPosts = unstable_cache(
  async (page: number, tag: string | null): Promise<PostListPage> => findPostPage(await getPayloadClient(), page, tag),
  ['content:posts:list'],
  { tags: [CONTENT_TAGS.posts], revalidate: CEILING_SECONDS },
)

/** A published post by slug, with the next older (`previous`) and newer (`next`) posts; null if none. */
export const getPost = unstable_cache(
  async (slug: string): Promise<PostDetail | null> => findPost(await getPayloadClient(), slug, null),
  ['content:posts:one'],
  {
    tags: [CONTENT_TAGS.posts],
    revalidate: CEILING_SECONDS,
  },
)

/** Every published post without bodies, newest first: for the feed, the sitemap and the tags. */
export const listPostIndex = unstable_cache(
  async (): Promise<PostIndexEntry[]> => findPostIndex(await getPayloadClient()),
  ['content:posts:index'],
  {
    tags: [CONTENT_TAGS.posts],
    revalidate: CEILING_SECONDS,
  },
)

/** Tags of published posts with their counts, most used first, then by name. */
export const listTags = async (): Promise<TagCount[]> => tagCounts(await listPostIndex())

/** Published changelog entries, newest version first. */
export const listChangelog = unstable_cache(
  async (): Promise<ChangelogItem[]> => findChangelog(await getPayloadClient(), null),
  ['content:changelog:list'],
  {
    tags: [CONTENT_TAGS.changelog],
    revalidate: CEILING_SECONDS,
  },
)

// --- drafts (draft mode, staff only, never cached) --------------------------------------------

/**
 * The staff user of this request, verified by Payload from the session cookie, or null. Draft
 * mode's cookie only says a preview was started; this is what decides whether drafts are shown.
 */
export const staffSession = async (): Promise<User | null> => {
  const payload = await getPayloadClient()
  const { user } = await payload.auth({ headers: await pageAuthHeaders() })
  return user && user.collection === 'users' && isStaffUser(user) ? user : null
}

/** The newest version (draft or published) of a post, as the staff user may read it. */
export const getDraftPost = async (slug: string, staff: User): Promise<PostDetail | null> =>
  findPost(await getPayloadClient(), slug, staff)

/** Every changelog entry in its newest version (drafts included), as the staff user may read them. */
export const listDraftChangelog = async (staff: User): Promise<ChangelogItem[]> =>
  findChangelog(await getPayloadClient(), staff)

/**
 * Next.js cache tags of the published content. The pages read posts and changelog entries through
 * `unstable_cache` under these tags; the collections' hooks revalidate them when an entry is
 * published, changed or unpublished (src/content/revalidate.ts, through the host's revalidateTag).
 */
export const CONTENT_TAGS = {
  posts: 'content:posts',
  changelog: 'content:changelog',
} as const

export type ContentTag = (typeof CONTENT_TAGS)[keyof typeof CONTENT_TAGS]

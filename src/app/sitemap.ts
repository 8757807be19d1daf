import type { MetadataRoute } from 'next'

import { blogListPath, postUrl, siteUrl } from '../content/seo'
import { listChangelog, listPostIndex, listTags } from './_lib/content'

/**
 * GET /sitemap.xml (in the app's root, outside both route groups: a metadata route needs no
 * layout). Dynamic, as the build has no database; the data comes from the content cache.
 */
export const dynamic = 'force-dynamic'

const sitemap = async (): Promise<MetadataRoute.Sitemap> => {
  const base = siteUrl()
  const [posts, tags, changelog] = await Promise.all([listPostIndex(), listTags(), listChangelog()])
  const newestPost = posts[0]?.updatedAt
  return [
    { url: `${base}/`, changeFrequency: 'weekly', priority: 1 },
    { url: `${base}/blog`, lastModified: newestPost, changeFrequency: 'weekly', priority: 0.8 },
    { url: `${base}/changelog`, lastModified: changelog[0]?.updatedAt, changeFrequency: 'weekly', priority: 0.7 },
    ...posts.map((post) => ({
      url: postUrl(base, post.slug),
      lastModified: post.updatedAt,
      changeFrequency: 'monthly' as const,
      priority: 0.6,
    })),
    ...tags.map(({ tag }) => ({
      url: `${base}${blogListPath(1, tag)}`,
      changeFrequency: 'weekly' as const,
      priority: 0.3,
    })),
  ]
}

export default sitemap

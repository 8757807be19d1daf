import { seoPlugin } from '@payloadcms/plugin-seo'
import { s3Storage as s3StoragePlugin } from '@payloadcms/storage-s3'
import type { Config, Plugin } from 'payload'

import { createChangelogCollection, linkChangelogToRelease } from '../collections/content/ChangelogEntries'
import { createMediaCollection } from '../collections/content/Media'
import { createPostsCollection } from '../collections/content/Posts'
import type { PreviewUrl } from '../collections/content/shared'
import { withRuntime } from '../src/config/runtime'
import { withPublicMediaUpkeep } from '../src/content/public-media'
import type { RevalidateContent } from '../src/content/revalidate'
import { s3ClientConfig, type S3Settings } from '../src/delivery/storage'
import { addCollectionHooks } from './extend'

/** A text field of the document the SEO plugin hands over ('' when it is not text yet). */
const textOf = (doc: unknown, name: string): string => {
  const value = (doc as Record<string, unknown> | undefined)?.[name]
  return typeof value === 'string' ? value : ''
}

export type ContentOptions = {
  serverUrl: string
  productName: string
  /** Local folder of uploaded images when S3 is not configured. */
  mediaDir: string
  s3: S3Settings | null
  /**
   * Expires the site's cached pages of posts or of the changelog. The host provides it (Next's
   * revalidateTag, in payload.config.ts), so the collections' hooks never import Next.
   */
  revalidate: RevalidateContent
}

/**
 * Content: blog posts, the changelog and their images, edited in the admin with drafts and live
 * preview, imported from src/content/**.mdx (src/content/import), and shown by the site's /blog and
 * /changelog pages, which the collections' hooks revalidate on every published change.
 */
export const contentPlugin =
  (options: ContentOptions): Plugin =>
  async (incoming: Config): Promise<Config> => {
    const previewUrl: PreviewUrl = (collection, slug) =>
      `${options.serverUrl}/preview?${new URLSearchParams({ collection, slug }).toString()}`
    const config: Config = {
      ...incoming,
      // Server-only: the collections' hooks reach the host's revalidation here (src/content/revalidate.ts).
      custom: withRuntime(incoming, 'content', { revalidate: options.revalidate }),
      collections: [
        // A release links to its changelog entry: the delivery plugin's collection, required before this one.
        ...addCollectionHooks(incoming, {
          plugin: 'contentPlugin',
          slug: 'releases',
          hooks: { afterChange: [linkChangelogToRelease] },
        }),
        // Publishing or unpublishing changes which images visitors may read (src/content/public-media.ts).
        withPublicMediaUpkeep(createPostsCollection({ previewUrl })),
        withPublicMediaUpkeep(createChangelogCollection({ previewUrl })),
        createMediaCollection({ staticDir: options.mediaDir }),
      ],
      admin: {
        ...incoming.admin,
        livePreview: {
          ...incoming.admin?.livePreview,
          breakpoints: [
            { name: 'mobile', label: 'Phone', width: 375, height: 667 },
            { name: 'desktop', label: 'Desktop', width: 1280, height: 800 },
          ],
        },
      },
    }
    const withSeo = seoPlugin({
      collections: ['posts', 'changelog_entries'],
      uploadsCollection: 'media',
      generateTitle: ({ doc }) => `${textOf(doc, 'title')} | ${options.productName}`,
      generateDescription: ({ doc }) => textOf(doc, 'summary'),
      generateURL: ({ doc, collectionSlug }) =>
        `${options.serverUrl}${collectionSlug === 'posts' ? `/blog/${textOf(doc, 'slug')}` : `/changelog#${textOf(doc, 'slug')}`}`,
    })(config)
    return s3StoragePlugin({
      enabled: Boolean(options.s3),
      alwaysInsertFields: true,
      bucket: options.s3?.bucket ?? 'unused',
      collections: { media: { prefix: 'media' } },
      config: s3ClientConfig(options.s3),
    })(withSeo)
  }

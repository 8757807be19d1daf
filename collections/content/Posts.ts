import type { CollectionConfig } from 'payload'

import { documentFieldRead, forceSelectOf, keepForcedFields } from '../../src/access/field-read'
import { CONTENT_TAGS } from '../../src/content/cache-tags'
import { contentEditor } from '../../src/content/editor'
import { featureAccess } from '../../src/licensing/entitlements'
import type { FeatureKey } from '../../src/plans/features'
import { featureOptions } from '../options'
import { contentCollection, type PreviewUrl, publishedAtField, slugField, sourceField, summaryField } from './shared'

/** Paths under /blog that are pages of their own, not posts. */
export const RESERVED_POST_SLUGS = ['page', 'tag', 'rss.xml', 'feed'] as const

/**
 * A premium post (one with `requiredFeature`) shows its title and summary to everyone and its body
 * only to staff and to holders of that feature key: REST, GraphQL and the pages alike, since they all
 * read through this rule. The entitlements lookup is shared by every check of one request.
 *
 * The rule reads `requiredFeature`, so the collection always loads it (`forceSelect`, whatever a
 * `select` asks for), and where it runs without the post (a `where` or `sort` on the body, the
 * permissions of /api/access) or without `requiredFeature` (an exclude-mode select) only staff read
 * the body: see src/access/field-read.ts.
 */
const premiumBodyAccess = documentFieldRead<{ requiredFeature: FeatureKey | null }>(
  ['requiredFeature'],
  async ({ req, doc }) => {
    const required = doc.requiredFeature
    if (!required) return true
    return (await featureAccess(required)({ req })) === true
  },
)

/** What the body's read rule decides on: loaded by every read, whatever it selects or excludes. */
const POSTS_FORCE_SELECT = forceSelectOf(premiumBodyAccess)

/**
 * Blog posts: written in the admin or imported from src/content/blog/*.mdx. Drafts and versions
 * are staff only; anyone reads what is published.
 */
export const createPostsCollection = (options: { previewUrl: PreviewUrl }): CollectionConfig => {
  const content = contentCollection({
    slug: 'posts',
    tag: CONTENT_TAGS.posts,
    previewUrl: options.previewUrl,
    admin: {
      defaultColumns: ['title', 'slug', '_status', 'publishedAt', 'updatedAt'],
      listSearchableFields: ['title', 'slug', 'summary'],
    },
  })
  return {
    ...content,
    labels: { singular: 'Post', plural: 'Posts' },
    forceSelect: POSTS_FORCE_SELECT,
    hooks: {
      ...content.hooks,
      beforeOperation: [...(content.hooks?.beforeOperation ?? []), keepForcedFields(POSTS_FORCE_SELECT)],
    },
    fields: [
      { name: 'title', type: 'text', required: true, maxLength: 120 },
      summaryField,
      { name: 'body', type: 'richText', editor: contentEditor, access: { read: premiumBodyAccess } },
      slugField({ reserved: RESERVED_POST_SLUGS }),
      publishedAtField,
      {
        name: 'author',
        type: 'text',
        required: true,
        admin: { position: 'sidebar', description: 'The name readers see under the title.' },
      },
      {
        name: 'tags',
        type: 'text',
        hasMany: true,
        maxRows: 8,
        admin: { position: 'sidebar', description: 'Lowercase words, such as payments or deployment.' },
      },
      { name: 'cover', label: 'Cover image', type: 'upload', relationTo: 'media', admin: { position: 'sidebar' } },
      {
        name: 'requiredFeature',
        label: 'Premium: requires',
        type: 'select',
        options: featureOptions,
        admin: { position: 'sidebar', description: 'Premium post: only holders of this feature key read the body.' },
      },
      sourceField,
    ],
  }
}

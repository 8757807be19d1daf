import type { Access, CollectionAfterChangeHook, CollectionAfterDeleteHook, CollectionConfig, Payload } from 'payload'

import { isStaffUser } from '../access/roles'
import { changelog_entries, posts, templates } from '../db/schema.generated'
import { executeOn, sql } from '../db/transaction'
import { requestEntitlements } from '../licensing/entitlements'
import type { Media } from '../payload-types'
import type { FeatureKey } from '../plans/features'

/**
 * Which images a visitor may read: those that published content shows them. Uploaded images are
 * not public by themselves: an image only a draft uses (an unannounced product, say), or only a
 * premium post's body, is not listed or served to someone who cannot read that content.
 *
 * - Anyone: the cover and social image of a published post (shown with its title, premium or not),
 *   the social image of a published changelog entry, images in the body of a published post without
 *   `requiredFeature` or of a published changelog entry, and the preview of a published template (the
 *   catalogue is public).
 * - A signed-in holder of a feature key: also the images in the bodies of published premium posts
 *   that key opens.
 * - Staff: every image (drafts, previews, the admin).
 *
 * The list comes from one SQL statement over the content tables, kept per process for CACHE_MS and
 * dropped whenever a post, changelog entry or template changes in this process; another instance sees
 * a change within CACHE_MS (and a template's future publishing time within CACHE_MS of passing).
 */
const PUBLIC_MEDIA_CACHE_MS = 30_000

type PublicMedia = { open: number[]; byFeature: Map<FeatureKey, number[]> }

type Cached = { at: number; value: Promise<PublicMedia> }
const cache = new WeakMap<Payload, Cached>()

/** Upload nodes of a Lexical body (at any depth) that point at a media row: their ids. */
const bodyImages = (table: typeof posts | typeof changelog_entries, feature: ReturnType<typeof sql>) => sql`
  SELECT (node->>'value')::int AS id, ${feature} AS feature
  FROM ${table}, jsonb_path_query(${table.body}, 'strict $.**') AS node
  WHERE ${table._status} = 'published' AND jsonb_typeof(node) = 'object'
    AND node->>'type' = 'upload' AND node->>'relationTo' = 'media' AND node->>'value' ~ '^[0-9]{1,9}$'`

const readPublicMedia = async (payload: Payload): Promise<PublicMedia> => {
  const rows = await executeOn<{ id: number; feature: FeatureKey | null }>(
    payload,
    undefined,
    sql`SELECT ${posts.cover} AS id, NULL::text AS feature FROM ${posts} WHERE ${posts._status} = 'published' AND ${posts.cover} IS NOT NULL
        UNION SELECT ${posts.meta_image}, NULL FROM ${posts} WHERE ${posts._status} = 'published' AND ${posts.meta_image} IS NOT NULL
        UNION SELECT ${changelog_entries.meta_image}, NULL FROM ${changelog_entries}
          WHERE ${changelog_entries._status} = 'published' AND ${changelog_entries.meta_image} IS NOT NULL
        UNION SELECT ${templates.preview}, NULL FROM ${templates} WHERE ${templates.preview} IS NOT NULL AND ${templates.publishedAt} <= now()
        UNION ${bodyImages(posts, sql`${posts.requiredFeature}::text`)}
        UNION ${bodyImages(changelog_entries, sql`NULL::text`)}`,
  )
  const open = new Set<number>()
  const byFeature = new Map<FeatureKey, Set<number>>()
  for (const { id, feature } of rows) {
    if (feature === null) open.add(Number(id))
    else byFeature.set(feature, (byFeature.get(feature) ?? new Set()).add(Number(id)))
  }
  return {
    open: [...open],
    byFeature: new Map([...byFeature].map(([feature, ids]) => [feature, [...ids].filter((id) => !open.has(id))])),
  }
}

const publicMedia = (payload: Payload): Promise<PublicMedia> => {
  const cached = cache.get(payload)
  if (cached && Date.now() - cached.at < PUBLIC_MEDIA_CACHE_MS) return cached.value
  const value = readPublicMedia(payload)
  cache.set(payload, { at: Date.now(), value })
  // A failed read is not kept: the next request asks again.
  value.catch(() => cache.delete(payload))
  return value
}

/** Forget the list in this process: the next read of an image asks the database again. */
const forgetPublicMedia = (payload: Payload): void => {
  cache.delete(payload)
}

/** The media collection's read rule (REST, GraphQL, the file route `/api/media/file/:name` and population alike). */
export const mediaReadAccess: Access = async ({ req }) => {
  if (isStaffUser(req.user)) return true
  const { open, byFeature } = await publicMedia(req.payload)
  const ids = [...open]
  if (req.user && byFeature.size > 0) {
    const { features } = await requestEntitlements(req)
    for (const [feature, more] of byFeature) if (features.has(feature)) ids.push(...more)
  }
  // `id exists: false` matches no row: the answer is an empty list, not a refusal.
  return ids.length > 0 ? { id: { in: ids } } : { id: { exists: false } }
}

const forgetOnChange: CollectionAfterChangeHook<Media> = ({ doc, req }) => {
  forgetPublicMedia(req.payload)
  return doc
}
const forgetOnDelete: CollectionAfterDeleteHook<Media> = ({ doc, req }) => {
  forgetPublicMedia(req.payload)
  return doc
}

/** A content collection whose changes drop this process's list at once (publishing, unpublishing, premium or not). */
export const withPublicMediaUpkeep = (collection: CollectionConfig): CollectionConfig => ({
  ...collection,
  hooks: {
    ...collection.hooks,
    afterChange: [...(collection.hooks?.afterChange ?? []), forgetOnChange],
    afterDelete: [...(collection.hooks?.afterDelete ?? []), forgetOnDelete],
  },
})

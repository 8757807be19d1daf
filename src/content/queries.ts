import type { SerializedEditorState } from '@payloadcms/richtext-lexical/lexical'
import semver from 'semver'
import type { Payload, Where } from 'payload'

import type { ChangelogEntry, Post, User } from '../payload-types'
import type { FeatureKey } from '../plans/features'
import { lexicalText, readingMinutes } from './render/text'

/**
 * The data layer of /blog, /changelog, the feed and the sitemap, on a Payload instance. Published
 * content is read as an anonymous visitor (`overrideAccess: false`, no user, `draft: false`); drafts
 * only for a staff user. The pages read through src/app/_lib/content.ts, which caches the published
 * reads in Next's cache under the content's tags (./cache-tags.ts) and finds the staff session.
 */
const POSTS_PER_PAGE = 10

type Image = { url: string; width: number | null; height: number | null; alt: string }

export type PostCard = {
  id: number
  title: string
  slug: string
  summary: string
  publishedAt: string
  updatedAt: string
  author: string
  tags: string[]
  cover: Image | null
  /** Null when the body is withheld (a premium post read without its feature key). */
  readingMinutes: number | null
  /** Premium posts: the feature key whose holders read the body. */
  requiredFeature: FeatureKey | null
}

type PostLink = { title: string; slug: string }

export type PostDetail = PostCard & {
  body: SerializedEditorState | null
  metaTitle: string | null
  metaDescription: string | null
  previous: PostLink | null
  next: PostLink | null
}

export type PostListPage = { posts: PostCard[]; page: number; totalPages: number; totalDocs: number }

/** A published post without its body: the feed, the sitemap and the tag list. */
export type PostIndexEntry = Omit<PostCard, 'cover' | 'readingMinutes' | 'requiredFeature'>

export type ChangelogItem = {
  id: number
  title: string
  slug: string
  version: string
  summary: string
  publishedAt: string
  updatedAt: string
  changeTypes: string[]
  body: SerializedEditorState | null
}

export type TagCount = { tag: string; count: number }

// `url` is computed from `filename` after read: without it the URL comes back null.
const MEDIA_FIELDS = {
  url: true,
  filename: true,
  mimeType: true,
  alt: true,
  width: true,
  height: true,
  sizes: true,
} as const
const CARD_FIELDS = {
  title: true,
  slug: true,
  summary: true,
  publishedAt: true,
  updatedAt: true,
  author: true,
  tags: true,
  cover: true,
  body: true,
  requiredFeature: true,
} as const

type CardSource = Pick<
  Post,
  | 'id'
  | 'title'
  | 'slug'
  | 'summary'
  | 'publishedAt'
  | 'updatedAt'
  | 'author'
  | 'tags'
  | 'cover'
  | 'body'
  | 'requiredFeature'
>

const publishedOnly: Where = { _status: { equals: 'published' } }

/**
 * How a query reads: as an anonymous visitor (published documents only), or, given a staff user,
 * the newest version of each document (drafts included) with that user's access.
 */
const readAs = (staff: User | null) =>
  staff
    ? ({ overrideAccess: false, user: staff, draft: true } as const)
    : ({ overrideAccess: false, draft: false } as const)

/** The cover in one of its sizes (`card` for lists), falling back to the original upload. */
const imageOf = (cover: Post['cover'], size: 'card' | 'og' | null): Image | null => {
  if (!cover || typeof cover !== 'object') return null
  const media = cover
  const sized = size ? media.sizes?.[size] : undefined
  const url = sized?.url || media.url
  if (!url) return null
  return {
    url,
    width: (sized?.url ? sized.width : media.width) ?? null,
    height: (sized?.url ? sized.height : media.height) ?? null,
    alt: media.alt ?? '',
  }
}

/** Entries published without a date (before the collection stamped it) sort by their last change. */
const dateOf = (doc: { publishedAt?: string | null; updatedAt: string }) => doc.publishedAt ?? doc.updatedAt

type IndexSource = Pick<Post, 'id' | 'title' | 'slug' | 'summary' | 'publishedAt' | 'updatedAt' | 'author' | 'tags'>

const toIndexEntry = (doc: IndexSource): PostIndexEntry => ({
  id: doc.id,
  title: doc.title,
  slug: doc.slug,
  summary: doc.summary,
  publishedAt: dateOf(doc),
  updatedAt: doc.updatedAt,
  author: doc.author,
  tags: doc.tags ?? [],
})

const toCard = (doc: CardSource, coverSize: 'card' | null): PostCard => ({
  ...toIndexEntry(doc),
  cover: imageOf(doc.cover, coverSize),
  readingMinutes: doc.body ? readingMinutes(lexicalText(doc.body)) : null,
  requiredFeature: doc.requiredFeature ?? null,
})

const toChangelogItem = (
  doc: Pick<
    ChangelogEntry,
    'id' | 'title' | 'slug' | 'version' | 'summary' | 'publishedAt' | 'updatedAt' | 'changeTypes' | 'body'
  >,
): ChangelogItem => ({
  id: doc.id,
  title: doc.title,
  slug: doc.slug,
  version: doc.version,
  summary: doc.summary,
  publishedAt: dateOf(doc),
  updatedAt: doc.updatedAt,
  changeTypes: doc.changeTypes ?? [],
  body: (doc.body as SerializedEditorState | null | undefined) ?? null,
})

/** Newest version first (semver order; an unparsable version sorts by date after the valid ones). */
const byVersionDescending = (a: ChangelogItem, b: ChangelogItem): number => {
  const validA = semver.valid(a.version)
  const validB = semver.valid(b.version)
  if (validA && validB) return semver.rcompare(validA, validB)
  if (validA) return -1
  if (validB) return 1
  return b.publishedAt.localeCompare(a.publishedAt)
}

// --- published content -------------------------------------------------------------------

/** One page of published posts, newest first, optionally of one tag. */
export const findPostPage = async (payload: Payload, page: number, tag: string | null): Promise<PostListPage> => {
  const result = await payload.find({
    collection: 'posts',
    where: tag ? { and: [publishedOnly, { tags: { equals: tag } }] } : publishedOnly,
    sort: ['-publishedAt', '-id'],
    page,
    limit: POSTS_PER_PAGE,
    depth: 1,
    select: CARD_FIELDS,
    populate: { media: MEDIA_FIELDS },
    ...readAs(null),
  })
  return {
    posts: result.docs.map((doc) => toCard(doc, 'card')),
    page: result.page ?? page,
    totalPages: Math.max(1, result.totalPages),
    totalDocs: result.totalDocs,
  }
}

const neighbour = async (
  payload: Payload,
  publishedAt: string,
  direction: 'older' | 'newer',
): Promise<PostLink | null> => {
  const { docs } = await payload.find({
    collection: 'posts',
    where: {
      and: [
        publishedOnly,
        { publishedAt: direction === 'older' ? { less_than: publishedAt } : { greater_than: publishedAt } },
      ],
    },
    sort: direction === 'older' ? '-publishedAt' : 'publishedAt',
    limit: 1,
    depth: 0,
    select: { title: true, slug: true },
    ...readAs(null),
  })
  const [doc] = docs
  return doc ? { title: doc.title, slug: doc.slug } : null
}

type DetailSource = CardSource & Pick<Post, 'meta'>

const toDetail = (doc: DetailSource, neighbours: { previous: PostLink | null; next: PostLink | null }): PostDetail => ({
  ...toCard(doc, null),
  body: (doc.body as SerializedEditorState | null | undefined) ?? null,
  metaTitle: doc.meta?.title ?? null,
  metaDescription: doc.meta?.description ?? null,
  ...neighbours,
})

const DETAIL_FIELDS = { ...CARD_FIELDS, meta: { title: true, description: true } } as const

/**
 * A post by slug with the next older (`previous`) and newer (`next`) published posts, null if none:
 * the published one, or with a staff user the newest version (a draft's neighbours go by its date).
 */
export const findPost = async (payload: Payload, slug: string, staff: User | null): Promise<PostDetail | null> => {
  const { docs } = await payload.find({
    collection: 'posts',
    where: staff ? { slug: { equals: slug } } : { and: [publishedOnly, { slug: { equals: slug } }] },
    limit: 1,
    depth: 1,
    select: DETAIL_FIELDS,
    populate: { media: MEDIA_FIELDS },
    ...readAs(staff),
  })
  const [doc] = docs
  if (!doc) return null
  const date = dateOf(doc)
  const [previous, next] = await Promise.all([neighbour(payload, date, 'older'), neighbour(payload, date, 'newer')])
  return toDetail(doc, { previous, next })
}

/** Every published post without bodies, newest first: for the feed, the sitemap and the tags. */
export const findPostIndex = async (payload: Payload): Promise<PostIndexEntry[]> => {
  const { docs } = await payload.find({
    collection: 'posts',
    where: publishedOnly,
    sort: ['-publishedAt', '-id'],
    pagination: false,
    depth: 0,
    select: { title: true, slug: true, summary: true, publishedAt: true, updatedAt: true, author: true, tags: true },
    ...readAs(null),
  })
  return docs.map(toIndexEntry)
}

/** Tags of these posts with their counts, most used first, then by name. */
export const tagCounts = (index: PostIndexEntry[]): TagCount[] => {
  const counts = new Map<string, number>()
  for (const post of index) {
    for (const tag of post.tags) counts.set(tag, (counts.get(tag) ?? 0) + 1)
  }
  return [...counts]
    .map(([tag, count]) => ({ tag, count }))
    .sort((a, b) => b.count - a.count || a.tag.localeCompare(b.tag))
}

const CHANGELOG_FIELDS = {
  title: true,
  slug: true,
  version: true,
  summary: true,
  publishedAt: true,
  updatedAt: true,
  changeTypes: true,
  body: true,
} as const

/** Changelog entries, newest version first: the published ones, or with a staff user every entry's newest version. */
export const findChangelog = async (payload: Payload, staff: User | null): Promise<ChangelogItem[]> => {
  const { docs } = await payload.find({
    collection: 'changelog_entries',
    ...(staff ? {} : { where: publishedOnly }),
    sort: '-publishedAt',
    pagination: false,
    depth: 1,
    select: CHANGELOG_FIELDS,
    populate: { media: MEDIA_FIELDS },
    ...readAs(staff),
  })
  return docs.map(toChangelogItem).sort(byVersionDescending)
}

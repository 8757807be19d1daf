import { Feed } from 'feed'
import type { Metadata } from 'next'

import { readEnv } from '../config/env'
import type { PostCard } from './queries'
import { PRODUCT_NAME } from '../config/product'

/**
 * Metadata and JSON-LD of the blog and the changelog, as pure functions of the content and the
 * site's base URL (SERVER_URL): the pages pass `siteUrl()`, the tests any base.
 */

export type PostSeo = Pick<PostCard, 'title' | 'slug' | 'summary' | 'publishedAt' | 'updatedAt' | 'author' | 'tags'> & {
  /** From the SEO fields, when an editor set them. */
  metaTitle?: string | null
  metaDescription?: string | null
}

export type ChangelogSeo = {
  version: string
  slug: string
  title: string
  summary: string
  publishedAt: string
  changeTypes: string[]
}

const trimBase = (base: string) => base.replace(/\/+$/, '')

/** The site's public base URL (SERVER_URL), read when a page renders: never baked in at build time. */
export const siteUrl = (): string => readEnv().serverUrl

export const postPath = (slug: string) => `/blog/${encodeURIComponent(slug)}`
export const postUrl = (base: string, slug: string) => `${trimBase(base)}${postPath(slug)}`
// PATCH: og-image-segment
/**
 * The last path segment of a post's `opengraph-image` route. Next appends a hash of the parent
 * path when that path holds a route group (here "(frontend)"), and og:image carries that URL;
 * tests/int/content-seo.test.ts checks this value against Next's own function.
 */
export const OG_IMAGE_SEGMENT = 'opengraph-image-1g8epz'
/** The post's social image: 1200x630 PNG, the same URL as its og:image (without Next's `?hash`). */
const postImageUrl = (base: string, slug: string) => `${postUrl(base, slug)}/${OG_IMAGE_SEGMENT}`
export const blogListPath = (page: number, tag?: string | null) => {
  const tagPart = tag ? `/tag/${encodeURIComponent(tag)}` : ''
  return page > 1 ? `/blog${tagPart}/page/${page}` : `/blog${tagPart}`
}
export const changelogAnchor = (slug: string) => slug

/** A post's head: title, description, canonical URL, Open Graph article and a large Twitter card. */
export const postMetadata = (base: string, post: PostSeo): Metadata => {
  const title = post.metaTitle?.trim() || post.title
  const description = post.metaDescription?.trim() || post.summary
  const url = postUrl(base, post.slug)
  return {
    metadataBase: new URL(trimBase(base)),
    title: `${title} · ${PRODUCT_NAME} blog`,
    description,
    authors: [{ name: post.author }],
    keywords: post.tags.length > 0 ? post.tags : undefined,
    alternates: { canonical: url, types: { 'application/rss+xml': `${trimBase(base)}/blog/rss.xml` } },
    openGraph: {
      type: 'article',
      url,
      title,
      description,
      siteName: PRODUCT_NAME,
      publishedTime: post.publishedAt,
      modifiedTime: post.updatedAt,
      authors: [post.author],
      tags: post.tags,
    },
    twitter: { card: 'summary_large_image', title, description },
  }
}

/** The head of a list page: /blog, /blog/page/2, /blog/tag/x. */
export const blogListMetadata = (base: string, options: { page: number; tag?: string | null }): Metadata => {
  const { page, tag } = options
  const scope = tag ? `Posts tagged “${tag}”` : 'Blog'
  const title = page > 1 ? `${scope} (page ${page}) · ${PRODUCT_NAME}` : `${scope} · ${PRODUCT_NAME}`
  const description = tag
    ? `Articles about ${tag} from the ${PRODUCT_NAME} team.`
    : `News, guides and release notes from the ${PRODUCT_NAME} team.`
  const url = `${trimBase(base)}${blogListPath(page, tag)}`
  return {
    metadataBase: new URL(trimBase(base)),
    title,
    description,
    alternates: { canonical: url, types: { 'application/rss+xml': `${trimBase(base)}/blog/rss.xml` } },
    openGraph: { type: 'website', url, title, description, siteName: PRODUCT_NAME },
    twitter: { card: 'summary', title, description },
  }
}

export const changelogMetadata = (base: string): Metadata => {
  const title = `Changelog · ${PRODUCT_NAME}`
  const description = `Every ${PRODUCT_NAME} release: what was added, changed, fixed and secured.`
  const url = `${trimBase(base)}/changelog`
  return {
    metadataBase: new URL(trimBase(base)),
    title,
    description,
    alternates: { canonical: url },
    openGraph: { type: 'website', url, title, description, siteName: PRODUCT_NAME },
    twitter: { card: 'summary', title, description },
  }
}

const publisher = (base: string) => ({ '@type': 'Organization', name: PRODUCT_NAME, url: trimBase(base) })

/** schema.org BlogPosting for a post page. */
export const blogPostingJsonLd = (base: string, post: PostSeo) => {
  const url = postUrl(base, post.slug)
  return {
    '@context': 'https://schema.org',
    '@type': 'BlogPosting',
    headline: post.title,
    description: post.metaDescription?.trim() || post.summary,
    datePublished: post.publishedAt,
    dateModified: post.updatedAt,
    author: { '@type': 'Person', name: post.author },
    image: postImageUrl(base, post.slug),
    url,
    mainEntityOfPage: { '@type': 'WebPage', '@id': url },
    publisher: publisher(base),
    ...(post.tags.length > 0 ? { keywords: post.tags.join(', ') } : {}),
  }
}

/**
 * schema.org SoftwareApplication for the changelog: the newest version as `softwareVersion`, and
 * every release as a `hasPart` CreativeWork with its notes (summary), date and anchor URL.
 */
export const changelogJsonLd = (base: string, entries: ChangelogSeo[]) => {
  const root = trimBase(base)
  const [latest] = entries
  return {
    '@context': 'https://schema.org',
    '@type': 'SoftwareApplication',
    name: PRODUCT_NAME,
    applicationCategory: 'DeveloperApplication',
    operatingSystem: 'Any',
    url: root,
    publisher: publisher(base),
    ...(latest
      ? { softwareVersion: latest.version, releaseNotes: `${root}/changelog#${changelogAnchor(latest.slug)}` }
      : {}),
    hasPart: entries.map((entry) => ({
      '@type': 'CreativeWork',
      name: entry.title,
      version: entry.version,
      datePublished: entry.publishedAt,
      description: entry.summary,
      url: `${root}/changelog#${changelogAnchor(entry.slug)}`,
      ...(entry.changeTypes.length > 0 ? { keywords: entry.changeTypes.join(', ') } : {}),
    })),
  }
}

/**
 * JSON for a `<script type="application/ld+json">`: `<`, `>` and `&` become \u escapes, so a title
 * containing `</script>` or `<!--` cannot end the script element early; U+2028/2029 are escaped too.
 */
export const serializeJsonLd = (value: unknown): string =>
  JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029')

export type FeedPost = Pick<PostSeo, 'title' | 'slug' | 'summary' | 'publishedAt' | 'updatedAt' | 'tags'>

export const FEED_SIZE = 20

/** /blog/rss.xml: RSS 2.0 of the newest posts (title, link, date, summary, tags). */
export const blogRss = (base: string, posts: FeedPost[]): string => {
  const root = trimBase(base)
  const newest = posts.slice(0, FEED_SIZE)
  const feed = new Feed({
    id: `${root}/blog`,
    title: `${PRODUCT_NAME} blog`,
    description: `News, guides and release notes from the ${PRODUCT_NAME} team.`,
    link: `${root}/blog`,
    language: 'en',
    copyright: `© ${PRODUCT_NAME}`,
    updated: newest[0] ? new Date(newest[0].updatedAt) : undefined,
    generator: false,
    feedLinks: { rss: `${root}/blog/rss.xml` },
  })
  for (const post of newest) {
    const url = postUrl(base, post.slug)
    feed.addItem({
      title: post.title,
      id: url,
      guid: url,
      link: url,
      date: new Date(post.publishedAt),
      description: post.summary,
      // No <author>: RSS 2.0 wants an email address there, and the feed names no one's.
      category: post.tags.map((tag) => ({ name: tag, domain: `${root}/blog/tag/${encodeURIComponent(tag)}` })),
    })
  }
  return feed.rss2()
}

import fs from 'node:fs'
import { createRequire } from 'node:module'

import type { Payload } from 'payload'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'

import { CONTENT_TAGS } from '../../src/content/cache-tags'
import type { Post } from '../../src/payload-types'
import { createUser, type TestUser, usePayload } from '../support/payload'

/**
 * The blog's data layer (src/content/queries.ts, read through the pages' cache in
 * src/app/_lib/content.ts) against a real database, and its metadata and JSON-LD builders
 * (src/content/seo.ts). Next's cache needs Next's request context, so
 * `unstable_cache` is replaced by a pass-through that records how each query is cached; the
 * session module is replaced so a test chooses the request's headers.
 */
const hoisted = vi.hoisted(() => {
  // Uploaded test images go to a scratch folder, not the project's media folder.
  process.env.MEDIA_DIR = `${process.env.TMPDIR ?? '/tmp'}/kit-content-seo-media-${process.pid}`
  return {
    cached: [] as { keys: string[]; tags?: string[]; revalidate?: number | false }[],
    requestHeaders: { current: new Headers() },
  }
})

vi.mock('next/cache', () => ({
  unstable_cache: <T>(fn: T, keys: string[], options: { tags?: string[]; revalidate?: number | false } = {}) => {
    hoisted.cached.push({ keys, ...options })
    return fn
  },
  revalidateTag: () => undefined,
}))

vi.mock('../../src/app/_lib/session', async () => {
  const { getPayload } = await import('payload')
  const { default: config } = await import('../../payload.config')
  return {
    getPayloadClient: () => getPayload({ config }),
    pageAuthHeaders: () => Promise.resolve(hoisted.requestHeaders.current),
  }
})

const queries = await import('../../src/app/_lib/content')
const seo = await import('../../src/content/seo')
const { bodyConverters } = await import('../../src/content/render/converters')
const { highlightCode } = await import('../../src/content/render/highlight')
const { anchorAllocator } = await import('../../src/content/render/slug')
const { lexicalText, readingMinutes } = await import('../../src/content/render/text')

const payload = usePayload()
const BASE = 'https://kit.example'

/** A Lexical body: a heading, a paragraph of `words` words and a code block. */
const body = (words: number) => ({
  root: {
    type: 'root',
    format: '' as const,
    indent: 0,
    version: 1,
    direction: 'ltr' as const,
    children: [
      {
        type: 'heading',
        tag: 'h2',
        version: 1,
        format: '',
        indent: 0,
        direction: 'ltr',
        children: [{ type: 'text', text: 'Setup', version: 1, format: 0, mode: 'normal', style: '', detail: 0 }],
      },
      {
        type: 'paragraph',
        version: 1,
        format: '',
        indent: 0,
        direction: 'ltr',
        textFormat: 0,
        children: [
          {
            type: 'text',
            text: Array.from({ length: words }, (_, i) => `word${i}`).join(' '),
            version: 1,
            format: 0,
            mode: 'normal',
            style: '',
            detail: 0,
          },
        ],
      },
      {
        type: 'block',
        version: 2,
        format: '',
        fields: { id: 'code1', blockName: '', blockType: 'Code', language: 'ts', code: 'const a = 1' },
      },
    ],
  },
})

type PostInput = {
  title: string
  slug: string
  date: string
  tags?: string[]
  words?: number
  status?: 'draft' | 'published'
  cover?: number
}

const createPost = async (input: PostInput): Promise<Post> =>
  payload().create({
    collection: 'posts',
    data: {
      title: input.title,
      slug: input.slug,
      summary: `Summary of ${input.title}`,
      author: 'Ada Writer',
      publishedAt: input.date,
      tags: input.tags ?? [],
      body: body(input.words ?? 100),
      cover: input.cover,
      _status: input.status ?? 'published',
    },
    draft: input.status === 'draft',
    overrideAccess: true,
  })

const createEntry = (
  payloadInstance: Payload,
  version: string,
  date: string,
  status: 'draft' | 'published' = 'published',
) =>
  payloadInstance.create({
    collection: 'changelog_entries',
    data: {
      title: `Release ${version}`,
      version,
      slug: `v${version.replace(/\./g, '-')}`,
      summary: `What changed in ${version}`,
      publishedAt: date,
      changeTypes: ['added', 'fixed'],
      body: body(30),
      _status: status,
    },
    draft: status === 'draft',
    overrideAccess: true,
  })

afterAll(() => fs.rmSync(process.env.MEDIA_DIR!, { recursive: true, force: true }))

let staff: TestUser
let customer: TestUser
let coverId: number

beforeAll(async () => {
  const png = await sharp({ create: { width: 1600, height: 840, channels: 3, background: '#4f46e5' } })
    .png()
    .toBuffer()
  const cover = await payload().create({
    collection: 'media',
    data: { alt: 'An indigo square' },
    file: { data: png, mimetype: 'image/png', name: 'cover.png', size: png.length },
    overrideAccess: true,
  })
  coverId = cover.id
  // Twelve published posts, one day apart (post-01 oldest), plus drafts that must never show.
  for (let day = 1; day <= 12; day += 1) {
    const n = String(day).padStart(2, '0')
    await createPost({
      title: `Post ${n}`,
      slug: `post-${n}`,
      date: `2026-01-${n}T00:00:00.000Z`,
      tags: day % 3 === 0 ? ['billing', 'webhooks'] : ['billing'],
      words: day === 12 ? 1000 : 100,
      cover: day === 12 ? coverId : undefined,
    })
  }
  await createPost({
    title: 'Secret draft',
    slug: 'secret-draft',
    date: '2026-02-01T00:00:00.000Z',
    tags: ['billing', 'secret'],
    status: 'draft',
  })
  // A published post whose newer version is still a draft: readers see the published title.
  const edited = await createPost({ title: 'Post 13', slug: 'post-13', date: '2026-01-13T00:00:00.000Z' })
  await payload().update({
    collection: 'posts',
    id: edited.id,
    data: { title: 'Post 13, draft rewrite' },
    draft: true,
    overrideAccess: true,
  })

  await createEntry(payload(), '1.9.0', '2026-03-01T00:00:00.000Z')
  await createEntry(payload(), '1.10.0', '2026-02-01T00:00:00.000Z')
  await createEntry(payload(), '2.0.0-beta.1', '2026-04-01T00:00:00.000Z', 'draft')

  staff = await createUser(payload(), 'support')
  customer = await createUser(payload(), 'customer')
})

describe('the published posts', () => {
  it('pages newest first, ten a page, without drafts', async () => {
    const first = await queries.listPosts(1, null)
    expect(first.totalDocs).toBe(13)
    expect(first.totalPages).toBe(2)
    expect(first.posts.map((post) => post.slug)).toEqual([
      'post-13',
      'post-12',
      'post-11',
      'post-10',
      'post-09',
      'post-08',
      'post-07',
      'post-06',
      'post-05',
      'post-04',
    ])
    const second = await queries.listPosts(2, null)
    expect(second.posts.map((post) => post.slug)).toEqual(['post-03', 'post-02', 'post-01'])
    expect((await queries.listPosts(3, null)).posts).toEqual([])
    expect(JSON.stringify([first, second])).not.toContain('secret')
    expect(first.posts[0]!.title).toBe('Post 13')
  })

  it('filters by tag, and a tag only drafts carry has no posts', async () => {
    const webhooks = await queries.listPosts(1, 'webhooks')
    expect(webhooks.posts.map((post) => post.slug)).toEqual(['post-12', 'post-09', 'post-06', 'post-03'])
    expect((await queries.listPosts(1, 'secret')).totalDocs).toBe(0)
    expect(await queries.listTags()).toEqual([
      { tag: 'billing', count: 12 },
      { tag: 'webhooks', count: 4 },
    ])
  })

  it('gives cards their reading time and the card-size cover with its alt text', async () => {
    const [post12] = (await queries.listPosts(1, 'webhooks')).posts
    expect(post12!.readingMinutes).toBe(4) // 1000 words + heading + code at 225 a minute
    expect(post12!.cover).toMatchObject({ alt: 'An indigo square', width: 800, height: 420 })
    expect(post12!.cover!.url).toMatch(/-800x420\.png$/)
    // A post's page shows the original upload.
    expect((await queries.getPost('post-12'))!.cover).toMatchObject({
      url: expect.stringMatching(/\/cover\.png$/),
      width: 1600,
      height: 840,
      alt: 'An indigo square',
    })
    const card = (await queries.listPosts(2, null)).posts[0]!
    expect(card.readingMinutes).toBe(1)
    expect(card.cover).toBeNull()
  })

  it('reads one post with its older and newer neighbours; drafts are not there', async () => {
    const post = await queries.getPost('post-05')
    expect(post).toMatchObject({
      title: 'Post 05',
      author: 'Ada Writer',
      previous: { slug: 'post-04' },
      next: { slug: 'post-06' },
    })
    expect(post!.body).toBeTruthy()
    expect(await queries.getPost('post-01')).toMatchObject({ previous: null, next: { slug: 'post-02' } })
    expect(await queries.getPost('post-13')).toMatchObject({ title: 'Post 13', next: null })
    expect(await queries.getPost('secret-draft')).toBeNull()
    expect(await queries.getPost('no-such-post')).toBeNull()
  })

  it('lists every published post without bodies for the feed and the sitemap', async () => {
    const index = await queries.listPostIndex()
    expect(index).toHaveLength(13)
    expect(index[0]).toEqual({
      id: expect.any(Number),
      title: 'Post 13',
      slug: 'post-13',
      summary: 'Summary of Post 13',
      publishedAt: '2026-01-13T00:00:00.000Z',
      updatedAt: expect.any(String),
      author: 'Ada Writer',
      tags: [],
    })
  })

  it('reads each through Next’s cache under the content tags, with a 60-second ceiling', () => {
    const byKey = Object.fromEntries(hoisted.cached.map((entry) => [entry.keys.join('|'), entry]))
    for (const key of ['content:posts:list', 'content:posts:one', 'content:posts:index']) {
      expect(byKey[key]).toMatchObject({ tags: [CONTENT_TAGS.posts], revalidate: 60 })
    }
    expect(byKey['content:changelog:list']).toMatchObject({ tags: [CONTENT_TAGS.changelog], revalidate: 60 })
  })
})

describe('the changelog', () => {
  it('lists published entries by version, newest first (semver, not text order)', async () => {
    const entries = await queries.listChangelog()
    expect(entries.map((entry) => entry.version)).toEqual(['1.10.0', '1.9.0'])
    expect(entries[0]).toMatchObject({
      slug: 'v1-10-0',
      changeTypes: ['added', 'fixed'],
      summary: 'What changed in 1.10.0',
    })
  })
})

describe('drafts in draft mode', () => {
  it('only a staff session Payload verifies counts as staff', async () => {
    hoisted.requestHeaders.current = new Headers({ authorization: `JWT ${staff.token}` })
    expect(await queries.staffSession()).toMatchObject({ id: staff.user.id })
    hoisted.requestHeaders.current = new Headers({ authorization: `JWT ${customer.token}` })
    expect(await queries.staffSession()).toBeNull()
    hoisted.requestHeaders.current = new Headers({ authorization: `JWT ${staff.token.slice(0, -4)}AAAA` })
    expect(await queries.staffSession()).toBeNull()
    hoisted.requestHeaders.current = new Headers()
    expect(await queries.staffSession()).toBeNull()
  })

  it('staff read the newest draft of a post and of the changelog', async () => {
    expect(await queries.getDraftPost('secret-draft', staff.user)).toMatchObject({ title: 'Secret draft' })
    expect(await queries.getDraftPost('post-13', staff.user)).toMatchObject({ title: 'Post 13, draft rewrite' })
    expect((await queries.listDraftChangelog(staff.user)).map((entry) => entry.version)).toEqual([
      '2.0.0-beta.1',
      '1.10.0',
      '1.9.0',
    ])
  })

  it('a customer passed as the user still reads no draft', async () => {
    expect(await queries.getDraftPost('secret-draft', customer.user)).toBeNull()
    // Payload applies the published-only rule to the newest version, which is the draft.
    expect(await queries.getDraftPost('post-13', customer.user)).toBeNull()
  })
})

const POST = {
  title: 'Exactly once </script><script>alert(1)</script>',
  slug: 'exactly-once',
  summary: 'How events become licenses.',
  publishedAt: '2026-01-05T00:00:00.000Z',
  updatedAt: '2026-01-07T10:00:00.000Z',
  author: 'Ada Writer',
  tags: ['billing', 'webhooks'],
}

describe('metadata and JSON-LD', () => {
  it('BlogPosting carries what search engines read, with absolute URLs', () => {
    expect(seo.blogPostingJsonLd(`${BASE}/`, POST)).toEqual({
      '@context': 'https://schema.org',
      '@type': 'BlogPosting',
      headline: POST.title,
      description: POST.summary,
      datePublished: POST.publishedAt,
      dateModified: POST.updatedAt,
      author: { '@type': 'Person', name: 'Ada Writer' },
      image: `${BASE}/blog/exactly-once/${seo.OG_IMAGE_SEGMENT}`,
      url: `${BASE}/blog/exactly-once`,
      mainEntityOfPage: { '@type': 'WebPage', '@id': `${BASE}/blog/exactly-once` },
      publisher: { '@type': 'Organization', name: 'Starter Kit', url: BASE },
      keywords: 'billing, webhooks',
    })
  })

  it('the image URL is the route Next gives the opengraph-image file beside the post page', () => {
    const require = createRequire(import.meta.url)
    const { normalizeMetadataRoute } = require('next/dist/lib/metadata/get-metadata-route.js') as {
      normalizeMetadataRoute: (page: string) => string
    }
    expect(normalizeMetadataRoute('/(frontend)/blog/[slug]/opengraph-image')).toBe(
      `/(frontend)/blog/[slug]/${seo.OG_IMAGE_SEGMENT}/route`,
    )
  })

  it('serialises JSON-LD so no value can end the script element', () => {
    const json = seo.serializeJsonLd({ ...seo.blogPostingJsonLd(BASE, POST), note: 'a <!-- b --> & \u2028' })
    expect(json).not.toMatch(/[<>&\u2028]/)
    expect(json).toContain('\\u003c/script\\u003e')
    expect(JSON.parse(json)).toMatchObject({ headline: POST.title, note: 'a <!-- b --> & \u2028' })
  })

  it('a post’s head: canonical URL, article Open Graph, large Twitter card, SEO overrides', () => {
    const metadata = seo.postMetadata(BASE, { ...POST, metaTitle: 'Exactly once, explained', metaDescription: null })
    expect(metadata.alternates?.canonical).toBe(`${BASE}/blog/exactly-once`)
    expect(metadata.metadataBase?.toString()).toBe(`${BASE}/`)
    expect(metadata.title).toBe('Exactly once, explained · Starter Kit blog')
    expect(metadata.description).toBe(POST.summary)
    expect(metadata.openGraph).toMatchObject({
      type: 'article',
      url: `${BASE}/blog/exactly-once`,
      publishedTime: POST.publishedAt,
      tags: POST.tags,
    })
    expect(metadata.twitter).toMatchObject({ card: 'summary_large_image' })
  })

  it('list pages point their canonical URL at /blog, /blog/page/n and /blog/tag/t', () => {
    expect(seo.blogListMetadata(BASE, { page: 1 }).alternates?.canonical).toBe(`${BASE}/blog`)
    expect(seo.blogListMetadata(BASE, { page: 3 }).alternates?.canonical).toBe(`${BASE}/blog/page/3`)
    expect(seo.blogListMetadata(BASE, { page: 2, tag: 'billing' }).alternates?.canonical).toBe(
      `${BASE}/blog/tag/billing/page/2`,
    )
  })

  it('the changelog is a SoftwareApplication at its newest version, each release a part', () => {
    const entries = [
      {
        version: '1.10.0',
        slug: 'v1-10-0',
        title: 'Release 1.10.0',
        summary: 'Ten',
        publishedAt: '2026-02-01T00:00:00.000Z',
        changeTypes: ['added'],
      },
      {
        version: '1.9.0',
        slug: 'v1-9-0',
        title: 'Release 1.9.0',
        summary: 'Nine',
        publishedAt: '2026-01-01T00:00:00.000Z',
        changeTypes: [],
      },
    ]
    const data = seo.changelogJsonLd(BASE, entries)
    expect(data).toMatchObject({
      '@type': 'SoftwareApplication',
      name: 'Starter Kit',
      softwareVersion: '1.10.0',
      releaseNotes: `${BASE}/changelog#v1-10-0`,
    })
    expect(data.hasPart).toEqual([
      {
        '@type': 'CreativeWork',
        name: 'Release 1.10.0',
        version: '1.10.0',
        datePublished: '2026-02-01T00:00:00.000Z',
        description: 'Ten',
        url: `${BASE}/changelog#v1-10-0`,
        keywords: 'added',
      },
      {
        '@type': 'CreativeWork',
        name: 'Release 1.9.0',
        version: '1.9.0',
        datePublished: '2026-01-01T00:00:00.000Z',
        description: 'Nine',
        url: `${BASE}/changelog#v1-9-0`,
      },
    ])
  })

  it('the RSS feed lists the newest posts with link, date, summary and categories', async () => {
    const xml = seo.blogRss(BASE, await queries.listPostIndex())
    expect(xml).toMatch(/^<\?xml/)
    expect(xml).toContain('<rss version="2.0"')
    expect(xml.match(/<item>/g)).toHaveLength(13)
    expect(xml).toContain(`<link>${BASE}/blog/post-12</link>`)
    expect(xml).toContain('<pubDate>Mon, 12 Jan 2026 00:00:00 GMT</pubDate>')
    expect(xml).toContain('<description><![CDATA[Summary of Post 12]]></description>')
    expect(xml).toContain(`<category domain="${BASE}/blog/tag/webhooks">webhooks</category>`)
    expect(xml).not.toContain('secret')
    const many = Array.from({ length: 30 }, (_, i) => ({ ...POST, slug: `p-${i}` }))
    expect(seo.blogRss(BASE, many).match(/<item>/g)).toHaveLength(seo.FEED_SIZE)
  })
})

describe('rendering the body', () => {
  it('reading time counts the text, code and callouts at 225 words a minute, at least one minute', () => {
    expect(lexicalText(body(3))).toBe('Setup word0 word1 word2 const a = 1')
    expect(readingMinutes('')).toBe(1)
    expect(readingMinutes(Array(450).fill('w').join(' '))).toBe(2)
  })

  it('heading anchors are slugs, unique within a body', () => {
    const anchor = anchorAllocator()
    expect([anchor('Set up S3!'), anchor('Set up S3'), anchor('Élan vital'), anchor('***')]).toEqual([
      'set-up-s3',
      'set-up-s3-2',
      'elan-vital',
      'section',
    ])
  })

  it('links: external ones get rel=noopener, unsafe schemes render as text', () => {
    const converters = bodyConverters(BASE)({ defaultConverters: {} }) as Record<string, unknown>
    const link = converters.link as (args: { node: unknown; nodesToJSX: () => string[] }) => {
      type: string
      props: Record<string, unknown>
    }
    const render = (fields: Record<string, unknown>) =>
      link({ node: { type: 'link', fields, children: [] }, nodesToJSX: () => ['text'] })
    expect(render({ url: 'https://github.com/x', linkType: 'custom' }).props).toMatchObject({
      href: 'https://github.com/x',
      rel: 'noopener',
    })
    expect(render({ url: `${BASE}/changelog`, linkType: 'custom' }).props).toMatchObject({
      href: `${BASE}/changelog`,
      rel: undefined,
    })
    expect(render({ url: '/blog/x', linkType: 'custom', newTab: true }).props).toMatchObject({
      target: '_blank',
      rel: 'noopener noreferrer',
    })
    for (const url of ['javascript:alert(1)', 'JaVaScRiPt:alert(1)', 'data:text/html,x', '//evil.example']) {
      expect(render({ url, linkType: 'custom' }).type).toBe('span')
    }
    const internal = render({ linkType: 'internal', doc: { relationTo: 'posts', value: { id: 1, slug: 'post-01' } } })
    expect(internal.props.href).toBe('/blog/post-01')
  })

  it('code is highlighted on the server with both themes, and escaped', async () => {
    const html = await highlightCode('const a = "<b>"', 'typescript')
    expect(html).toContain('--shiki-dark:')
    expect(html).not.toContain('<b>')
    expect(await highlightCode('<script>alert(1)</script>', 'cobol')).not.toContain('<script>')
  })
})

describe('premium posts', () => {
  it('anonymous readers get the card and the notice data, not the body (the collection withholds it)', async () => {
    const premium = await payload().create({
      collection: 'posts',
      data: {
        title: 'Templates deep dive',
        slug: 'templates-deep-dive',
        summary: 'For template library customers.',
        author: 'Ada Writer',
        publishedAt: '2026-01-20T00:00:00.000Z',
        body: body(500),
        requiredFeature: 'templates',
        _status: 'published',
      },
      overrideAccess: true,
    })
    const post = await queries.getPost('templates-deep-dive')
    expect(post).toMatchObject({
      title: 'Templates deep dive',
      requiredFeature: 'templates',
      body: null,
      readingMinutes: null,
    })
    expect((await queries.listPosts(1, null)).posts[0]).toMatchObject({
      slug: 'templates-deep-dive',
      requiredFeature: 'templates',
      readingMinutes: null,
    })
    expect(await queries.getDraftPost('templates-deep-dive', staff.user)).toMatchObject({
      body: expect.anything(),
      readingMinutes: 2,
    })
    await payload().delete({ collection: 'posts', id: premium.id, overrideAccess: true })
  })
})

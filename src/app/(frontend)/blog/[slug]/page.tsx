import type { Metadata } from 'next'
import { notFound } from 'next/navigation'

import { RichBody } from '../../../../content/render/RichBody'
import { JsonLd } from '../../../../content/render/JsonLd'
import type { PostDetail } from '../../../../content/queries'
import { FEATURE_LABELS } from '../../../../plans/features'
import { blogPostingJsonLd, postMetadata, postPath, type PostSeo, siteUrl } from '../../../../content/seo'
import { PreviewBanner } from '../../preview/_components/PreviewBanner'
import { PostMeta } from '../_components/PostMeta'
import { TagList } from '../_components/TagList'
import { loadPost } from './load'
import { ScriptFree } from '../../_components/ScriptFree'
import { PremiumBody } from './PremiumBody'

/**
 * /blog/<slug>: rendered on the first request (never at build time: the build has no database),
 * then cached until a post is published or changed (tag `content:posts`) or 60 seconds pass.
 * Draft mode bypasses the cache; loadPost decides whether it may show a draft.
 */
export const revalidate = 60
export const generateStaticParams = (): { slug: string }[] => []

type Props = { params: Promise<{ slug: string }> }

const seoOf = (post: PostDetail): PostSeo => ({
  title: post.title,
  slug: post.slug,
  summary: post.summary,
  publishedAt: post.publishedAt,
  updatedAt: post.updatedAt,
  author: post.author,
  tags: post.tags,
  metaTitle: post.metaTitle,
  metaDescription: post.metaDescription,
})

export const generateMetadata = async ({ params }: Props): Promise<Metadata> => {
  const loaded = await loadPost((await params).slug)
  if (!loaded) return {}
  const metadata = postMetadata(siteUrl(), seoOf(loaded.post))
  return loaded.preview ? { ...metadata, robots: { index: false, follow: false } } : metadata
}

const PostPage = async ({ params }: Props) => {
  const { slug } = await params
  const loaded = await loadPost(slug)
  if (!loaded) notFound()
  const { post, preview } = loaded
  const base = siteUrl()
  return (
    <>
      {preview ? <PreviewBanner returnTo={postPath(post.slug)} /> : null}
      <article className="content-page post" data-slug={post.slug}>
        {/* A premium body is loaded by React for the readers who hold its feature; drafts refresh as staff edit. */}
        {preview || (!post.body && post.requiredFeature) ? null : <ScriptFree />}
        <JsonLd data={blogPostingJsonLd(base, seoOf(post))} />
        <header className="post-header">
          <a className="back-link" href="/blog">
            ← All posts
          </a>
          <TagList tags={post.tags} />
          <h1>{post.title}</h1>
          <p className="post-lede">{post.summary}</p>
          <PostMeta post={post} withAuthor />
        </header>
        {post.cover ? (
          <figure className="post-cover">
            <img
              src={post.cover.url}
              alt={post.cover.alt}
              width={post.cover.width ?? undefined}
              height={post.cover.height ?? undefined}
              fetchPriority="high"
            />
          </figure>
        ) : null}
        {post.body ? (
          <RichBody data={post.body} siteOrigin={new URL(base).origin} />
        ) : post.requiredFeature ? (
          <PremiumBody slug={post.slug}>
            <aside className="premium-notice" data-testid="premium-notice">
              <p className="premium-notice-title">For customers</p>
              <p>
                The full article is part of {FEATURE_LABELS[post.requiredFeature]}.{' '}
                <a href="/#pricing">See the plans</a> or{' '}
                <a href={`/sign-in?next=${encodeURIComponent(`/blog/${post.slug}`)}`}>sign in</a>.
              </p>
            </aside>
          </PremiumBody>
        ) : null}
        {post.previous || post.next ? (
          <nav className="post-nav" aria-label="More posts">
            {post.previous ? (
              <a className="post-nav-link post-nav-previous" href={postPath(post.previous.slug)} rel="prev">
                <span className="post-nav-label">← Previous post</span>
                <span className="post-nav-title">{post.previous.title}</span>
              </a>
            ) : (
              <span />
            )}
            {post.next ? (
              <a className="post-nav-link post-nav-next" href={postPath(post.next.slug)} rel="next">
                <span className="post-nav-label">Next post →</span>
                <span className="post-nav-title">{post.next.title}</span>
              </a>
            ) : (
              <span />
            )}
          </nav>
        ) : null}
      </article>
    </>
  )
}

export default PostPage

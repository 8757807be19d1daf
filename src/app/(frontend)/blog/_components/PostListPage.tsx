import { notFound } from 'next/navigation'

import { PRODUCT_NAME } from '../../../../config/product'
import { blogListPath } from '../../../../content/seo'
import { listPosts, listTags } from '../../../_lib/content'
import { ScriptFree } from '../../_components/ScriptFree'
import { PostCard } from './PostCard'
import { Pagination } from './Pagination'

const PAGE_PATTERN = /^[1-9][0-9]{0,5}$/
const TAG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/

/** A list page's number from its path segment, or null for anything that is not one (404). */
export const parsePage = (value: string | undefined): number | null =>
  value && PAGE_PATTERN.test(value) ? Number(value) : null

/** A tag from its path segment (lowercase ASCII words and dashes: nothing to decode), or null (404). */
export const parseTag = (value: string | undefined): string | null =>
  value && value.length <= 64 && TAG_PATTERN.test(value) ? value : null

/** /blog, /blog/page/n, /blog/tag/t and /blog/tag/t/page/n: the newest posts first. */
export const PostListPage = async ({ page, tag }: { page: number; tag: string | null }) => {
  const [list, tags] = await Promise.all([listPosts(page, tag), listTags()])
  // An empty page past the end, or a tag no published post has, is not a page.
  if (list.posts.length === 0 && (page > 1 || tag)) notFound()
  return (
    <div className="content-page blog-index">
      <ScriptFree />
      <header className="page-header">
        <p className="eyebrow">{tag ? 'Tag' : 'Blog'}</p>
        <h1>{tag ? `Posts tagged “${tag}”` : `News and guides from the ${PRODUCT_NAME} team`}</h1>
        <p className="page-lede">
          {tag ? (
            <>
              {list.totalDocs} {list.totalDocs === 1 ? 'post' : 'posts'}. <a href="/blog">See every post</a>.
            </>
          ) : (
            <>
              How the kit is built, how to ship with it, and what changed. Follow along with the{' '}
              <a href="/blog/rss.xml">RSS feed</a>, or see every release in the <a href="/changelog">changelog</a>.
            </>
          )}
        </p>
      </header>
      {tags.length > 0 ? (
        <nav className="tag-filter" aria-label="Filter by tag">
          <ul className="tag-list">
            <li>
              <a className="tag" href={blogListPath(1)} aria-current={tag ? undefined : 'page'}>
                All
              </a>
            </li>
            {tags.map(({ tag: name, count }) => (
              <li key={name}>
                <a className="tag" href={blogListPath(1, name)} aria-current={name === tag ? 'page' : undefined}>
                  {name} <span className="tag-count">{count}</span>
                </a>
              </li>
            ))}
          </ul>
        </nav>
      ) : null}
      {list.posts.length === 0 ? (
        <p className="empty">No posts yet. Check back soon.</p>
      ) : (
        <div className="post-grid">
          {list.posts.map((post) => (
            <PostCard key={post.id} post={post} />
          ))}
        </div>
      )}
      <Pagination page={list.page} totalPages={list.totalPages} tag={tag} />
    </div>
  )
}

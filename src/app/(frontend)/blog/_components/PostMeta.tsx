import type { PostCard } from '../../../../content/queries'
import { formatDate, isoDay } from '../../../../content/render/format'

const Dot = () => <span aria-hidden="true"> · </span>

/** "By Ada · Nov 22, 2026 · 4 min read", or "· For customers" on a premium post read without its key. */
export const PostMeta = ({ post, withAuthor = false }: { post: PostCard; withAuthor?: boolean }) => (
  <p className="post-meta">
    {withAuthor ? (
      <>
        <span className="post-author">By {post.author}</span>
        <Dot />
      </>
    ) : null}
    <time dateTime={isoDay(post.publishedAt)}>{formatDate(post.publishedAt)}</time>
    {post.readingMinutes ? (
      <>
        <Dot />
        <span>{post.readingMinutes} min read</span>
      </>
    ) : null}
    {post.requiredFeature ? (
      <>
        <Dot />
        <span className="premium-label">For customers</span>
      </>
    ) : null}
  </p>
)

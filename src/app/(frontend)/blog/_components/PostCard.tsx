import type { PostCard as PostCardData } from '../../../../content/queries'
import { postPath } from '../../../../content/seo'
import { PostMeta } from './PostMeta'
import { TagList } from './TagList'

/** One post in a list: cover thumbnail, tags, title (the link), summary, date and reading time. */
export const PostCard = ({ post }: { post: PostCardData }) => (
  <article className="post-card" data-slug={post.slug}>
    {post.cover ? (
      <img
        className="post-card-cover"
        src={post.cover.url}
        alt=""
        width={post.cover.width ?? undefined}
        height={post.cover.height ?? undefined}
        loading="lazy"
        decoding="async"
      />
    ) : (
      <div className="post-card-cover post-card-cover-empty" aria-hidden="true" />
    )}
    <div className="post-card-body">
      <TagList tags={post.tags} />
      <h2 className="post-card-title">
        <a href={postPath(post.slug)}>{post.title}</a>
      </h2>
      <p className="post-card-summary">{post.summary}</p>
      <PostMeta post={post} />
    </div>
  </article>
)

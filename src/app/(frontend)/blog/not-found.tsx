/** A missing or unpublished post, an empty page past the end, an unused tag. */
const BlogNotFound = () => (
  <div className="content-page blog-not-found">
    <header className="page-header">
      <p className="eyebrow">404</p>
      <h1>This post is not here</h1>
      <p className="page-lede">
        It may have moved, or it is not published yet. <a href="/blog">See every post</a>.
      </p>
    </header>
  </div>
)

export default BlogNotFound

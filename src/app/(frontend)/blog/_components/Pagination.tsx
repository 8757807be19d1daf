import { blogListPath } from '../../../../content/seo'

/** Newer and older pages of a list, with "page n of m" between them. */
export const Pagination = ({ page, totalPages, tag }: { page: number; totalPages: number; tag: string | null }) =>
  totalPages <= 1 ? null : (
    <nav className="pagination" aria-label="Pages">
      {page > 1 ? (
        <a className="pagination-link" href={blogListPath(page - 1, tag)} rel="prev">
          ← Newer posts
        </a>
      ) : (
        <span />
      )}
      <span className="pagination-status">
        Page {page} of {totalPages}
      </span>
      {page < totalPages ? (
        <a className="pagination-link" href={blogListPath(page + 1, tag)} rel="next">
          Older posts →
        </a>
      ) : (
        <span />
      )}
    </nav>
  )

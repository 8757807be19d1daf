import { blogListPath } from '../../../../content/seo'

/** A post's tags as links to their lists. */
export const TagList = ({ tags, current }: { tags: string[]; current?: string | null }) =>
  tags.length === 0 ? null : (
    <ul className="tag-list" aria-label="Tags">
      {tags.map((tag) => (
        <li key={tag}>
          <a className="tag" href={blogListPath(1, tag)} aria-current={tag === current ? 'page' : undefined}>
            {tag}
          </a>
        </li>
      ))}
    </ul>
  )

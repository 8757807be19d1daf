import { sameSitePath } from '../../../http/paths'

/**
 * Where a preview goes and where an exit returns: site paths only. A value that would leave the
 * site ("//evil.example", "https://...", "/\\evil") or reach the API or the admin falls back to the blog.
 */
const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/
/** Only the path matters here: the Location header is relative, so any origin checks it. */
const SITE = 'http://site.invalid'

/** The page of an entry, or null for an unknown collection or a malformed slug. */
export const previewPath = (collection: string | null, slug: string | null): string | null => {
  if (!slug || !SLUG.test(slug) || slug.length > 96) return null
  if (collection === 'posts') return `/blog/${slug}`
  if (collection === 'changelog_entries') return `/changelog#${slug}`
  return null
}

/** A same-site path to return to after leaving preview (defaults to the blog); the API and the admin are not pages to return to. */
export const returnPath = (value: string | null): string => {
  const path = sameSitePath(value, SITE)
  if (!path) return '/blog'
  const { pathname } = new URL(path, SITE)
  const top = decodeURIComponent(pathname.split('/')[1] ?? '').toLowerCase()
  return top === 'api' || top === 'admin' ? '/blog' : path
}

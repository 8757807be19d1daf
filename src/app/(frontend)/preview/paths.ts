/**
 * Where a preview goes and where an exit returns: site paths only. A value that would leave the
 * site ("//evil.example", "https://...", "/\\evil") or reach the API or the admin falls back to "/".
 */
const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/

/** The page of an entry, or null for an unknown collection or a malformed slug. */
export const previewPath = (collection: string | null, slug: string | null): string | null => {
  if (!slug || !SLUG.test(slug) || slug.length > 96) return null
  if (collection === 'posts') return `/blog/${slug}`
  if (collection === 'changelog_entries') return `/changelog#${slug}`
  return null
}

/** A same-site path to return to after leaving preview (defaults to the blog). */
export const returnPath = (value: string | null): string => {
  if (!value || !value.startsWith('/') || value.startsWith('//') || value.includes('\\')) return '/blog'
  try {
    const url = new URL(value, 'http://site.invalid')
    if (url.origin !== 'http://site.invalid') return '/blog'
    if (url.pathname.startsWith('/api') || url.pathname.startsWith('/admin')) return '/blog'
    return `${url.pathname}${url.search}${url.hash}`
  } catch {
    return '/blog'
  }
}

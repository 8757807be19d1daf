/**
 * Lowercase ASCII words joined by single dashes, at most `max` characters, never starting or ending with a
 * dash ("Set up S3!" -> "set-up-s3"): post, template and changelog slugs, and heading anchors.
 */
export const toSlug = (text: string, max: number): string =>
  text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, max)
    .replace(/^-+|-+$/g, '')

/** A heading's anchor ("section" when nothing is left). */
const slugify = (text: string): string => toSlug(text, 80) || 'section'

/**
 * Unique anchors within one document, in document order: the second "Setup" becomes "setup-2".
 * One instance per rendered body.
 */
export const anchorAllocator = () => {
  const seen = new Map<string, number>()
  return (text: string): string => {
    const base = slugify(text)
    const count = (seen.get(base) ?? 0) + 1
    seen.set(base, count)
    return count === 1 ? base : `${base}-${count}`
  }
}

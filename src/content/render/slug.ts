/** A heading's anchor: lowercase words joined by dashes, ASCII only ("Set up S3!" -> "set-up-s3"). */
export const slugify = (text: string): string =>
  text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 80) || 'section'

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

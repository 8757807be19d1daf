/** The longest return path the service keeps; anything longer is refused, not cut. */
export const MAX_RETURN_PATH = 2048

/** Percent-decoding, repeated until nothing changes (3 rounds at most), or null when malformed or deeper. */
const decodeFully = (value: string): string | null => {
  let decoded = value
  for (let round = 0; round < 3; round += 1) {
    let next: string
    try {
      next = decodeURIComponent(decoded)
    } catch {
      return null
    }
    if (next === decoded) return decoded
    decoded = next
  }
  return null
}

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/

/** A text that a browser reads as a path on the current site: one leading slash, no backslash, no control character. */
const looksLikeSitePath = (text: string) =>
  text.startsWith('/') && !text.startsWith('//') && !text.includes('\\') && !CONTROL.test(text)

/**
 * The one check every redirect of the service goes through (sign-in's `next`, the OAuth and
 * confirmation landings, the billing portal's `return_url`, the preview exit): a same-site relative
 * path (`/dashboard?tab=billing`), or null for anything that could leave the site.
 *
 * It normalises first and checks after: the value is percent-decoded (repeatedly) and its dot
 * segments resolved the way a browser's URL parser resolves them (`/.//evil`, `/a/..//evil` and
 * `/%2e//evil` all become `//evil`), and then the input, its decoded form and the path it resolves to
 * must each be a single-slash path on the site. The answer is the resolved path, so what is checked is
 * exactly what the `Location` header carries; a browser resolving it again lands on the same path.
 */
export const sameSitePath = (value: unknown, serverUrl: string): string | null => {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_RETURN_PATH) return null
  const decoded = decodeFully(value)
  if (decoded === null || !looksLikeSitePath(value) || !looksLikeSitePath(decoded)) return null
  const base = new URL(serverUrl)
  let resolved: URL
  try {
    resolved = new URL(value, base)
  } catch {
    return null
  }
  if (resolved.origin !== base.origin) return null
  const path = `${resolved.pathname}${resolved.search}${resolved.hash}`
  // The decoded text resolved too: a server or proxy that decodes before it routes must not see `//host` either.
  const decodedResolved = new URL(decoded, base)
  const decodedPath = decodeFully(resolved.pathname)
  if (decodedPath === null || decodedResolved.origin !== base.origin) return null
  if (!looksLikeSitePath(path) || !looksLikeSitePath(decodedPath) || !looksLikeSitePath(decodedResolved.pathname))
    return null
  // What the browser does with the Location header: resolve it against the page's URL once more.
  const again = new URL(path, base)
  if (again.origin !== base.origin || again.pathname !== resolved.pathname) return null
  return path
}

/**
 * A row id in a path (`/api/licenses/:id/...`): digits naming a row, else the caller's 404, so an id
 * that is malformed, names nothing or names someone else's row all answer alike.
 */
export const pathRowId = (raw: string, notFound: () => Error): number => {
  if (!/^[1-9]\d{0,14}$/.test(raw)) throw notFound()
  return Number(raw)
}

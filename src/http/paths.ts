/**
 * A same-site relative path (`/dashboard?tab=billing`), or null for anything that could leave the
 * site: absolute URLs, protocol-relative `//host`, backslashes (`/\host`), encoded slashes that
 * decode to either, control characters and other schemes.
 */
export const sameSitePath = (value: unknown, serverUrl: string): string | null => {
  if (typeof value !== 'string' || value.length === 0 || value.length > 2048) return null
  let decoded = value
  for (let round = 0; round < 3; round += 1) {
    try {
      const next = decodeURIComponent(decoded)
      if (next === decoded) break
      decoded = next
    } catch {
      return null
    }
  }
  for (const candidate of [value, decoded]) {
    if (!candidate.startsWith('/') || candidate.startsWith('//') || candidate.includes('\\')) return null
    // eslint-disable-next-line no-control-regex
    if (/[\u0000-\u001f\u007f]/.test(candidate)) return null
  }
  const base = new URL(serverUrl)
  const resolved = new URL(value, base)
  if (resolved.origin !== base.origin) return null
  return `${resolved.pathname}${resolved.search}${resolved.hash}`
}

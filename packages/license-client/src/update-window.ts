import type { UpdateDecision, UpdateWindowClaim } from './types.js'

/** A semantic version's major number (`2.4.1`, `v3.0.0-rc.1`); a TypeError for anything else. */
const majorOf = (version: string): number => {
  const match = /^v?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:[-+][0-9A-Za-z.+-]*)?$/.exec(version.trim())
  if (!match?.[1]) throw new TypeError(`not a semantic version: ${JSON.stringify(version)}`)
  return Number(match[1])
}

const timeOf = (publishedAt: string | Date): number => {
  const time = (publishedAt instanceof Date ? publishedAt : new Date(publishedAt)).getTime()
  if (Number.isNaN(time)) throw new TypeError(`not a date: ${JSON.stringify(publishedAt)}`)
  return time
}

/**
 * The service's own rule (docs/LICENSING.md, "A license's life"): `lifetime` covers every release,
 * `major` the releases whose major version is at most `major`, `months` those published before `until`.
 * A certificate without a window (a service older than update windows) covers every release, as the
 * service's validation did then.
 */
export const decideUpdate = (
  window: UpdateWindowClaim | undefined,
  release: { version: string; publishedAt: string | Date },
): UpdateDecision => {
  const major = majorOf(release.version)
  const published = timeOf(release.publishedAt)
  if (!window || window.policy === 'lifetime') return { allowed: true, reason: 'LIFETIME' }
  // A window without its bound covers every release, as the service's own check does.
  if (window.policy === 'major')
    return typeof window.major !== 'number' || major <= window.major
      ? { allowed: true, reason: 'WITHIN_MAJOR' }
      : { allowed: false, reason: 'NEWER_MAJOR' }
  if (window.policy === 'months')
    return typeof window.until !== 'string' || published < timeOf(window.until)
      ? { allowed: true, reason: 'WITHIN_WINDOW' }
      : { allowed: false, reason: 'WINDOW_ENDED' }
  // A policy this client does not know: nothing newer is promised.
  return { allowed: false, reason: 'WINDOW_ENDED' }
}

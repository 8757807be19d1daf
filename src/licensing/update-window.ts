import semver from 'semver'

import type { UpdatePolicy } from '../plans/update-policies'

export type { UpdatePolicy }

/**
 * A license's update window (docs/LICENSING.md, "Update windows"): which releases it may download.
 * The policy comes from the plan and is recorded on the license at grant, so a later change of the
 * plan's policy never takes back what a customer bought.
 * - `lifetime`: every release.
 * - `major`: releases whose major version is at most `updatesMajor`.
 * - `months`: releases published before `updatesUntil`.
 * Outside its window a license stays valid (the kit keeps working); only newer downloads are locked.
 */
export type UpdateWindow = { policy: UpdatePolicy; major: number | null; until: string | null }

/** The window as the validation body and the certificate's `upd` claim carry it: only the fields its policy reads. */
export const describeWindow = (window: UpdateWindow): { policy: UpdatePolicy; major?: number; until?: string } =>
  window.policy === 'major' && window.major !== null
    ? { policy: 'major', major: window.major }
    : window.policy === 'months' && window.until !== null
      ? { policy: 'months', until: window.until }
      : { policy: window.policy }

/** Whether a release (its version and publication time) is inside the window. */
export const windowCovers = (
  window: UpdateWindow,
  release: { version: string; publishedAt: string | Date },
): boolean => {
  switch (window.policy) {
    case 'lifetime':
      return true
    case 'major':
      return window.major === null || semver.major(release.version) <= window.major
    case 'months':
      return window.until === null || new Date(release.publishedAt).getTime() < new Date(window.until).getTime()
    default: {
      const unmapped: never = window.policy
      throw new Error(`unmapped update policy ${String(unmapped)}`)
    }
  }
}

/** The major version of the newest stable release, 1 when there is none: what a `major` window opens at grant. */
export const newestStableMajor = (versions: string[]): number => {
  const stable = versions.filter((version) => semver.valid(version) && semver.prerelease(version) === null)
  return stable.length === 0 ? 1 : Math.max(1, ...stable.map((version) => semver.major(version)))
}

/**
 * `months` months after `from`, as Postgres's `interval` counts them (the grant's window is computed in
 * SQL): the same day of the month, or the month's last day when it has no such day (31 January + 1 month
 * is 28 February), at the same time of day.
 */
export const addMonths = (from: Date, months: number): Date => {
  const year = from.getUTCFullYear()
  const month = from.getUTCMonth() + months
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate()
  const next = new Date(from.getTime())
  next.setUTCFullYear(year, month, Math.min(from.getUTCDate(), lastDay))
  return next
}

/** What a plan says about updates, as a license records it at grant or on an upgrade. */
export type PlanUpdatePolicy = { updatePolicy: UpdatePolicy; updateMonths: number | null }

/** The window a license of this plan opens now (`newestMajor`: of the stable releases published now). */
export const openingWindow = (plan: PlanUpdatePolicy, newestMajor: number, now: Date): UpdateWindow => {
  switch (plan.updatePolicy) {
    case 'lifetime':
      return { policy: 'lifetime', major: null, until: null }
    case 'major':
      return { policy: 'major', major: newestMajor, until: null }
    case 'months':
      return { policy: 'months', major: null, until: addMonths(now, plan.updateMonths ?? 12).toISOString() }
  }
}

/**
 * The window after a paid renewal: `major` opens up to the newest stable major (never lower than it
 * was), `months` adds the plan's months to the later of now and the current end. A `lifetime` window
 * has nothing to renew (the caller refuses it before).
 */
export const renewedWindow = (
  window: UpdateWindow,
  plan: PlanUpdatePolicy,
  newestMajor: number,
  now: Date,
): UpdateWindow => {
  switch (window.policy) {
    case 'lifetime':
      return window
    case 'major':
      return { ...window, major: Math.max(window.major ?? 1, newestMajor) }
    case 'months': {
      const current = window.until ? new Date(window.until) : now
      const from = current.getTime() > now.getTime() ? current : now
      return { ...window, until: addMonths(from, plan.updateMonths ?? 12).toISOString() }
    }
  }
}

/**
 * Whether a renewal is offered: some published stable release lies outside the window (a `lifetime`
 * window covers everything; a `major` or `months` window that still covers every release has nothing
 * to renew yet).
 */
export const renewalOpensSomething = (
  window: UpdateWindow,
  releases: { version: string; publishedAt: string | Date }[],
): boolean => releases.some((release) => semver.prerelease(release.version) === null && !windowCovers(window, release))

/** The window in a customer's words, for the dashboard and the emails. */
export const windowInWords = (window: UpdateWindow): string => {
  switch (window.policy) {
    case 'lifetime':
      return 'every release'
    case 'major':
      return `releases up to ${window.major ?? 1}.x`
    case 'months':
      return window.until
        ? `releases published until ${new Date(window.until).toLocaleDateString('en-US', { year: 'numeric', month: 'long', day: 'numeric', timeZone: 'UTC' })}`
        : 'every release'
  }
}

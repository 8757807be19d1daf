import semver from 'semver'

import { ServiceError } from '../http/errors'

export type VersionRequest = { kind: 'default' } | { kind: 'latest' } | { kind: 'exact'; version: string }

const MAX_VERSION_LENGTH = 64

/**
 * The `version` query parameter: absent (the newest release the license allows), `latest`, or an
 * exact semantic version. Anything else, repeated parameters included, is a 400 `invalid_version`;
 * the value is only ever compared with release records, never used in a path or an object key.
 */
export const parseVersionRequest = (values: string[]): VersionRequest => {
  if (values.length === 0) return { kind: 'default' }
  if (values.length > 1) throw invalidVersion()
  const value = values[0]!
  if (value === 'latest') return { kind: 'latest' }
  if (value.length === 0 || value.length > MAX_VERSION_LENGTH || semver.valid(value) !== value) throw invalidVersion()
  return { kind: 'exact', version: value }
}

export const invalidVersion = (): ServiceError =>
  new ServiceError(400, 'invalid_version', 'version must be "latest" or a release version such as 1.4.2.')

export const isPrerelease = (version: string): boolean => semver.prerelease(version) !== null

/** Newest first, by semantic version precedence. */
export const newestFirst = <T extends { version: string }>(releases: T[]): T[] =>
  [...releases].sort((a, b) => semver.rcompare(a.version, b.version))

import type { PayloadRequest } from 'payload'

import { downloads, licenses, releases } from '../db/schema.generated'
import { bare, columnList, execute, foreignKeyViolation, sql } from '../db/transaction'
import { requireAccount } from '../http/account'
import { ServiceError } from '../http/errors'
import { truncatedAddress } from '../http/ip-address'
import { type Entitlements, entitlementsOf } from '../licensing/entitlements'
import type { ReleaseStorage, StoredArchive } from './storage'
import { isPrerelease, newestFirst, parseVersionRequest } from './versions'

export type DownloadSettings = { storage: ReleaseStorage; ttlSeconds: number }

/** What choosing and linking a release need of its row. */
type ReleaseRow = StoredArchive & { version: string; published_at: Date | string }

/** Published releases with an archive, only what choosing and linking need; for an exact version only that one. */
const publishedReleases = (req: PayloadRequest, now: Date, version?: string) =>
  execute<ReleaseRow>(
    req,
    sql`SELECT ${columnList(releases.id, releases.version, releases.filename, releases.prefix, releases.publishedAt)} FROM ${releases}
        WHERE ${releases.publishedAt} <= ${now.toISOString()} AND ${releases.filename} IS NOT NULL
        ${version === undefined ? sql`` : sql`AND ${releases.version} = ${version}`}`,
  )

/** Of published releases, those a license may download, newest first: pre-releases only with the `advanced` key. */
const allowedOf = <T extends { version: string }>(rows: T[], allowsLatest: boolean): T[] =>
  newestFirst(allowsLatest ? rows : rows.filter((row) => !isPrerelease(row.version)))

/** The versions a customer may download by name, newest first (the dashboard's buttons): none without a paid license. */
export const downloadableReleases = async (req: PayloadRequest, entitlements: Entitlements): Promise<{ version: string; publishedAt: string }[]> => {
  if (!entitlements.licenses.some((license) => !license.plan.isFree)) return []
  const rows = allowedOf(await publishedReleases(req, new Date()), entitlements.features.has(LATEST_FEATURE))
  return rows.map((row) => ({ version: row.version, publishedAt: new Date(row.published_at).toISOString() }))
}

export type DownloadLink = { url: string; version: string; filename: string; expiresAt: string }

/** The feature key that opens pre-releases and `latest` (ultimate and pro; not standard). */
export const LATEST_FEATURE = 'advanced'

/**
 * A signed link to the release a user may download: the newest their license allows, `latest`
 * (never for a license without the `advanced` key), or an exact published version. Each link
 * handed out is one `downloads` row and one more on the license's and the release's counts.
 */
export const requestDownload = async (
  req: PayloadRequest,
  settings: DownloadSettings,
  versionValues: string[],
  client: { address: string | null; userAgent: string | null },
): Promise<DownloadLink> => {
  const user = requireAccount(req, 'Sign in to download the kit.')
  const wanted = parseVersionRequest(versionValues)
  const entitlements = await entitlementsOf(req.payload, user.id, req)
  const license = entitlements.licenses.find((candidate) => !candidate.plan.isFree)
  if (!license) throw new ServiceError(403, 'license_required', 'Downloading the kit needs an active license.')
  const allowsLatest = entitlements.features.has(LATEST_FEATURE)
  if (wanted.kind === 'latest' && !allowsLatest) {
    throw new ServiceError(403, 'version_not_allowed', 'Your license does not include the latest release. Leave out the version for the newest one it covers.')
  }

  const now = new Date()
  const published = await publishedReleases(req, now, wanted.kind === 'exact' ? wanted.version : undefined)
  let release: ReleaseRow | undefined
  if (wanted.kind === 'exact') {
    release = published[0]
    if (!release) throw new ServiceError(404, 'version_not_found', `There is no release ${wanted.version}.`)
    if (isPrerelease(release.version) && !allowsLatest) {
      throw new ServiceError(403, 'version_not_allowed', `Your license does not include the pre-release ${release.version}.`)
    }
  } else {
    release = allowedOf(published, wanted.kind === 'latest' || allowsLatest)[0]
    if (!release) throw new ServiceError(404, 'version_not_found', 'No release is available yet.')
  }

  const nowSeconds = Math.floor(now.getTime() / 1000)
  const expires = nowSeconds + settings.ttlSeconds
  const url = await settings.storage.linkFor(release, user.id, expires, nowSeconds)
  const chosen = release
  // The history row and both counts in one statement: atomic without a transaction, one round trip,
  // the increments in SQL (concurrent downloads never lose a count), and the row's foreign keys refuse
  // a license or release deleted since it was read, before anything is counted.
  try {
    await execute(
      req,
      sql`WITH recorded AS (
            INSERT INTO ${downloads} (${bare(downloads.user, downloads.license, downloads.release, downloads.version, downloads.clientAddress, downloads.userAgent)})
            VALUES (${user.id}, ${license.id}, ${chosen.id}, ${chosen.version}, ${truncatedAddress(client.address)}, ${client.userAgent?.slice(0, 256) ?? null})
            RETURNING ${downloads.license}, ${downloads.release}
          ), counted_license AS (
            UPDATE ${licenses} SET ${bare(licenses.downloadCount)} = COALESCE(${licenses.downloadCount}, 0) + 1, ${bare(licenses.lastDownloadedAt)} = now()
            WHERE ${licenses.id} = (SELECT ${bare(downloads.license)} FROM recorded) RETURNING ${licenses.id}
          ), counted_release AS (
            UPDATE ${releases} SET ${bare(releases.downloadCount)} = COALESCE(${releases.downloadCount}, 0) + 1
            WHERE ${releases.id} = (SELECT ${bare(downloads.release)} FROM recorded) RETURNING ${releases.id}
          )
          SELECT (SELECT count(*) FROM counted_license) AS licenses, (SELECT count(*) FROM counted_release) AS releases`,
    )
  } catch (error) {
    const constraint = foreignKeyViolation(error)
    if (constraint === null) throw error
    throw constraint.includes('release')
      ? new ServiceError(404, 'version_not_found', `Release ${chosen.version} was just withdrawn.`)
      : new ServiceError(403, 'license_required', 'Downloading the kit needs an active license.')
  }
  return { url, version: chosen.version, filename: chosen.filename!, expiresAt: new Date(expires * 1000).toISOString() }
}


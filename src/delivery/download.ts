import type { PayloadRequest } from 'payload'

import type { SqlRow } from '../db/rows'
import { downloads, releases } from '../db/schema.generated'
import { run, statement } from '../db/statements'
import { bare, columnList, foreignKeyViolation, sql } from '../db/transaction'
import { requireAccount } from '../http/account'
import { ServiceError } from '../http/errors'
import { truncatedAddress } from '../http/ip-address'
import {
  ENTITLEMENTS,
  type EntitledLicense,
  type EntitlementRow,
  type Entitlements,
  entitlementsFromRows,
  keepEntitlements,
  keptEntitlements,
} from '../licensing/entitlements'
import { countLicenseDownloadSql } from '../licensing/store'
import { windowCovers, windowInWords } from '../licensing/update-window'
import type { ReleaseStorage } from './storage'
import { isPrerelease, newestFirst, parseVersionRequest } from './versions'

export type DownloadSettings = { storage: ReleaseStorage; ttlSeconds: number }

/** What choosing and linking a release need of its row. */
type ReleaseRow = Pick<SqlRow<typeof releases>, 'id' | 'version' | 'filename' | 'prefix' | 'published_at'>

const PUBLISHED_RELEASES = statement<'now', ReleaseRow>(
  (p) =>
    sql`SELECT ${columnList(releases.id, releases.version, releases.filename, releases.prefix, releases.publishedAt)} FROM ${releases}
        WHERE ${releases.publishedAt} <= ${p.now} AND ${releases.filename} IS NOT NULL`,
)

/** Published releases with an archive, only what choosing and linking need. */
const publishedReleases = (req: PayloadRequest, now: Date) => run(req, PUBLISHED_RELEASES, { now: now.toISOString() })

/**
 * A download's two reads in one round trip: the user's entitlements (ENTITLEMENTS' rows) and the
 * published releases, each as a JSON array (timestamps in ISO form, which both readers parse).
 */
const ENTITLEMENTS_AND_RELEASES = statement<
  'userId' | 'now',
  { entitlements: EntitlementRow[]; releases: ReleaseRow[] }
>(
  (p) =>
    sql`SELECT (SELECT coalesce(json_agg(e), '[]'::json) FROM (${ENTITLEMENTS.build(p)}) AS e) AS entitlements,
               (SELECT coalesce(json_agg(r), '[]'::json) FROM (${PUBLISHED_RELEASES.build(p)}) AS r) AS releases`,
)

/**
 * The user's entitlements and the published releases: one statement, or the releases alone when the
 * request looked up the entitlements already (an API key's check). The entitlements are kept for the
 * rest of the request either way.
 */
const entitlementsAndReleases = async (
  req: PayloadRequest,
  userId: number,
  now: Date,
): Promise<{ entitlements: Entitlements; published: ReleaseRow[] }> => {
  const kept = keptEntitlements(req, userId)
  if (kept) {
    const [entitlements, published] = await Promise.all([kept, publishedReleases(req, now)])
    return { entitlements, published }
  }
  const read = run(req, ENTITLEMENTS_AND_RELEASES, { userId, now: now.toISOString() })
  const entitlements = read.then(([row]) => entitlementsFromRows(row?.entitlements ?? []))
  keepEntitlements(req, userId, entitlements)
  const [row] = await read
  return { entitlements: await entitlements, published: row?.releases ?? [] }
}

/**
 * The history row and both counts in one statement: atomic without a transaction, one round trip,
 * the increments in SQL (concurrent downloads never lose a count), and the row's foreign keys refuse
 * a license or release deleted since it was read, before anything is counted.
 */
const RECORD_DOWNLOAD = statement<'user' | 'license' | 'release' | 'version' | 'address' | 'userAgent'>(
  (p) =>
    sql`WITH recorded AS (
          INSERT INTO ${downloads} (${bare(downloads.user, downloads.license, downloads.release, downloads.version, downloads.clientAddress, downloads.userAgent)})
          VALUES (${p.user}, ${p.license}, ${p.release}, ${p.version}, ${p.address}, ${p.userAgent})
          RETURNING ${downloads.license}, ${downloads.release}
        ), counted_license AS (
          ${countLicenseDownloadSql(sql`(SELECT ${bare(downloads.license)} FROM recorded)`)}
        ), counted_release AS (
          UPDATE ${releases} SET ${bare(releases.downloadCount)} = COALESCE(${releases.downloadCount}, 0) + 1
          WHERE ${releases.id} = (SELECT ${bare(downloads.release)} FROM recorded) RETURNING ${releases.id}
        )
        SELECT (SELECT count(*) FROM counted_license) AS licenses, (SELECT count(*) FROM counted_release) AS releases`,
)

/** Of published releases, those a license may download, newest first: pre-releases only with the `advanced` key. */
const allowedOf = <T extends { version: string }>(rows: T[], allowsLatest: boolean): T[] =>
  newestFirst(allowsLatest ? rows : rows.filter((row) => !isPrerelease(row.version)))

// published_at is nullable, but publishedReleases reads published releases only.
const asRelease = (row: ReleaseRow) => ({
  version: row.version,
  publishedAt: new Date(row.published_at!).toISOString(),
})

/** The paid license (best plan first) whose update window covers the release, if any. */
const coveringLicense = (paid: EntitledLicense[], row: ReleaseRow): EntitledLicense | undefined =>
  paid.find((license) => windowCovers(license.updates, asRelease(row)))

export type DownloadableReleases = {
  /** What the customer may download by name, newest first. */
  releases: { version: string; publishedAt: string }[]
  /** Newer releases outside every update window: how many, the newest, and what the window covers in words. */
  locked: { count: number; newest: string; covers: string } | null
}

/** The versions a customer may download by name, newest first (the dashboard's buttons): none without a paid license. */
export const downloadableReleases = async (
  req: PayloadRequest,
  entitlements: Entitlements,
): Promise<DownloadableReleases> => {
  const paid = entitlements.licenses.filter((license) => !license.plan.isFree)
  if (paid.length === 0) return { releases: [], locked: null }
  const rows = allowedOf(await publishedReleases(req, new Date()), entitlements.features.has(LATEST_FEATURE))
  const covered = rows.filter((row) => coveringLicense(paid, row))
  const lockedRows = rows.filter((row) => !coveringLicense(paid, row))
  return {
    releases: covered.map(asRelease),
    locked: lockedRows[0]
      ? { count: lockedRows.length, newest: lockedRows[0].version, covers: windowInWords(paid[0]!.updates) }
      : null,
  }
}

/**
 * 403 `updates_expired`: the release is newer than the license's updates. The message names the
 * newest release the license covers and the ways forward.
 */
const updatesExpired = (paid: EntitledLicense[], wanted: string, allowed: ReleaseRow[]): ServiceError => {
  const newestCovered = allowed.find((row) => coveringLicense(paid, row))
  const covers = windowInWords(paid[0]!.updates)
  return new ServiceError(
    403,
    'updates_expired',
    `Your license includes ${covers}${newestCovered ? `; the newest it covers is ${newestCovered.version}` : ''}. ` +
      `To download ${wanted}, renew your updates or upgrade your plan on your dashboard.`,
  )
}

export type DownloadLink = { url: string; version: string; filename: string; expiresAt: string }

/** The feature key that opens pre-releases and `latest` (ultimate and pro; not standard). */
const LATEST_FEATURE = 'advanced'

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
  const now = new Date()
  // Every published release: the window check needs the newest one covered, whatever was asked for.
  const { entitlements, published } = await entitlementsAndReleases(req, user.id, now)
  const paid = entitlements.licenses.filter((candidate) => !candidate.plan.isFree)
  if (paid.length === 0) throw new ServiceError(403, 'license_required', 'Downloading the kit needs an active license.')
  const allowsLatest = entitlements.features.has(LATEST_FEATURE)
  if (wanted.kind === 'latest' && !allowsLatest) {
    throw new ServiceError(
      403,
      'version_not_allowed',
      'Your license does not include the latest release. Leave out the version for the newest one it covers.',
    )
  }

  const allowed = allowedOf(published, allowsLatest)
  let release: ReleaseRow | undefined
  if (wanted.kind === 'exact') {
    release = published.find((row) => row.version === wanted.version)
    if (!release) throw new ServiceError(404, 'version_not_found', `There is no release ${wanted.version}.`)
    if (isPrerelease(release.version) && !allowsLatest) {
      throw new ServiceError(
        403,
        'version_not_allowed',
        `Your license does not include the pre-release ${release.version}.`,
      )
    }
    if (!coveringLicense(paid, release)) throw updatesExpired(paid, release.version, allowed)
  } else if (wanted.kind === 'latest') {
    release = allowedOf(published, true)[0]
    if (!release) throw new ServiceError(404, 'version_not_found', 'No release is available yet.')
    if (!coveringLicense(paid, release)) throw updatesExpired(paid, release.version, allowed)
  } else {
    if (allowed.length === 0) throw new ServiceError(404, 'version_not_found', 'No release is available yet.')
    release = allowed.find((row) => coveringLicense(paid, row))
    if (!release) throw updatesExpired(paid, allowed[0]!.version, allowed)
  }
  // The download counts on the license whose window opened it (the best plan's, when several do).
  const license = coveringLicense(paid, release)!

  const nowSeconds = Math.floor(now.getTime() / 1000)
  const expires = nowSeconds + settings.ttlSeconds
  const url = await settings.storage.linkFor(release, user.id, expires, nowSeconds)
  const chosen = release
  try {
    await run(req, RECORD_DOWNLOAD, {
      user: user.id,
      license: license.id,
      release: chosen.id,
      version: chosen.version,
      address: truncatedAddress(client.address),
      userAgent: client.userAgent?.slice(0, 256) ?? null,
    })
  } catch (error) {
    const constraint = foreignKeyViolation(error)
    if (constraint === null) throw error
    throw constraint.includes('release')
      ? new ServiceError(404, 'version_not_found', `Release ${chosen.version} was just withdrawn.`)
      : new ServiceError(403, 'license_required', 'Downloading the kit needs an active license.')
  }
  return { url, version: chosen.version, filename: chosen.filename!, expiresAt: new Date(expires * 1000).toISOString() }
}

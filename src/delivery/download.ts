import type { PayloadRequest } from 'payload'

import { execute, inTransaction, sql } from '../db/transaction'
import { ServiceError } from '../http/errors'
import { entitlementsOf } from '../licensing/entitlements'
import type { Release, User } from '../payload-types'
import { truncatedAddress } from './client-address'
import type { ReleaseStorage } from './storage'
import { isPrerelease, newestFirst, parseVersionRequest } from './versions'

export type DownloadSettings = { storage: ReleaseStorage; ttlSeconds: number }

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
  const user = req.user && req.user.collection === 'users' ? (req.user as User) : null
  if (!user) throw new ServiceError(401, 'unauthenticated', 'Sign in to download the kit.')
  const wanted = parseVersionRequest(versionValues)
  const entitlements = await entitlementsOf(req.payload, user.id, req)
  const license = entitlements.licenses.find((candidate) => !candidate.plan.isFree)
  if (!license) throw new ServiceError(403, 'license_required', 'Downloading the kit needs an active license.')
  const allowsLatest = entitlements.features.has(LATEST_FEATURE)
  if (wanted.kind === 'latest' && !allowsLatest) {
    throw new ServiceError(403, 'version_not_allowed', 'Your license does not include the latest release. Leave out the version for the newest one it covers.')
  }

  const now = new Date()
  const { docs: published } = await req.payload.find({
    collection: 'releases',
    where: { and: [{ publishedAt: { less_than_equal: now.toISOString() } }, { filename: { exists: true } }] },
    limit: 1000,
    depth: 0,
    pagination: false,
    req,
    overrideAccess: true,
  })
  let release: Release | undefined
  if (wanted.kind === 'exact') {
    release = published.find((candidate) => candidate.version === wanted.version)
    if (!release) throw new ServiceError(404, 'version_not_found', `There is no release ${wanted.version}.`)
    if (isPrerelease(release.version) && !allowsLatest) {
      throw new ServiceError(403, 'version_not_allowed', `Your license does not include the pre-release ${release.version}.`)
    }
  } else {
    const allowed = wanted.kind === 'latest' || allowsLatest ? published : published.filter((candidate) => !isPrerelease(candidate.version))
    release = newestFirst(allowed)[0]
    if (!release) throw new ServiceError(404, 'version_not_found', 'No release is available yet.')
  }

  const nowSeconds = Math.floor(now.getTime() / 1000)
  const expires = nowSeconds + settings.ttlSeconds
  const url = await settings.storage.linkFor(release, user.id, expires, nowSeconds)
  const chosen = release
  await inTransaction(req.payload, async (tx) => {
    await tx.payload.create({
      collection: 'downloads',
      data: {
        user: user.id,
        license: license.id,
        release: chosen.id,
        version: chosen.version,
        clientAddress: truncatedAddress(client.address),
        userAgent: client.userAgent?.slice(0, 256) ?? null,
      },
      req: tx,
      overrideAccess: true,
    })
    // Increments in SQL, so concurrent downloads never lose a count.
    await execute(tx, sql`UPDATE licenses SET download_count = COALESCE(download_count, 0) + 1, last_downloaded_at = now() WHERE id = ${license.id}`)
    await execute(tx, sql`UPDATE releases SET download_count = COALESCE(download_count, 0) + 1 WHERE id = ${chosen.id}`)
  })
  return { url, version: chosen.version, filename: chosen.filename!, expiresAt: new Date(expires * 1000).toISOString() }
}

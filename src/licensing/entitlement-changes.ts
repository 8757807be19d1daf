import type { CollectionAfterChangeHook, PayloadRequest } from 'payload'

import { optionalRuntimeOf } from '../config/runtime'
import { relationId } from '../db/relations'
import type { License } from '../payload-types'
import type { SqlRow } from '../db/rows'
import { license_seats } from '../db/schema.generated'
import { execute, sql } from '../db/transaction'
import { queueJob } from '../jobs/queue'

/*
 * What follows a change of a customer's entitlements outside licensing: the Discord community's role sync
 * (src/community/, docs/COMMUNITY.md). Here, below the capabilities that change licenses and seats, so
 * none of them imports the community.
 */

/**
 * Queue a sync of these customers' Discord roles in the transaction of the change that may alter them (a
 * license granted, revoked, refunded, moved to another plan; a seat claimed or ended): the job runs once
 * the change is committed and reads the entitlements then, so whatever order changes land in, the last
 * sync sees the last state. Nothing when Discord is not configured. A customer who never connected costs
 * the job two queries.
 */
export const queueCommunitySync = async (req: PayloadRequest, userIds: Iterable<number | null | undefined>) => {
  if (!optionalRuntimeOf(req.payload, 'community')) return
  for (const userId of new Set([...userIds].filter((id): id is number => typeof id === 'number'))) {
    await queueJob(req, { task: 'syncCommunityRoles', input: { userId } })
  }
}

/** A license written through Payload: a sync for its owner (before and after) and its seat members when what entitles changed. */
export const queueCommunitySyncOnLicenseChange: CollectionAfterChangeHook<License> = async ({
  doc,
  previousDoc,
  operation,
  req,
}) => {
  if (!optionalRuntimeOf(req.payload, 'community')) return doc
  const changed =
    operation === 'create'
      ? doc.status === 'active'
      : doc.status !== previousDoc?.status ||
        relationId(doc.plan) !== relationId(previousDoc.plan) ||
        relationId(doc.user) !== relationId(previousDoc.user) ||
        (doc.validUntil ?? null) !== (previousDoc.validUntil ?? null)
  if (!changed) return doc
  const members =
    operation === 'create'
      ? []
      : await execute<Pick<SqlRow<typeof license_seats>, 'member_id'>>(
          req,
          sql`SELECT ${license_seats.member} FROM ${license_seats} WHERE ${license_seats.license} = ${doc.id} AND ${license_seats.status} = 'claimed' AND ${license_seats.member} IS NOT NULL`,
        )
  await queueCommunitySync(req, [
    relationId(doc.user),
    relationId(previousDoc?.user),
    ...members.map((row) => Number(row.member_id)),
  ])
  return doc
}

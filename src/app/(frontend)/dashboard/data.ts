import type { Payload, PayloadRequest } from 'payload'

import { relationId } from '../../../db/relations'
import { type DownloadableReleases, downloadableReleases } from '../../../delivery/download'
import type { Entitlements } from '../../../licensing/entitlements'
import type { ChangelogEntry, License, SupportReply, SupportRequest, Template, User } from '../../../payload-types'
import type { ActivationView } from '../../../licensing/activation-store'
import { activationsOf } from '../../../teams/activations'
import { listSeats, type SeatList } from '../../../teams/seats'

/** How many versions the dashboard offers a button for; older ones stay on the changelog. */
export const LISTED_VERSIONS = 10
/** Templates and support requests shown at most (the newest). */
const LISTED_TEMPLATES = 50
const LISTED_REQUESTS = 20
const LISTED_REPLIES = 500

export type ListedRelease = { version: string; publishedAt: string }

/** What the Downloads section lists: the newest versions covered, and the newer ones outside every update window. */
export type ReleaseListing = { releases: ListedRelease[]; locked: DownloadableReleases['locked'] }

/**
 * The newest versions the customer may download by name (requestDownload's own rule,
 * src/delivery/download.ts), at most `limit`, and what newer releases their update windows leave out.
 */
export const releaseListing = async (
  req: PayloadRequest,
  entitlements: Entitlements,
  limit = LISTED_VERSIONS,
): Promise<ReleaseListing> => {
  const { releases, locked } = await downloadableReleases(req, entitlements)
  return { releases: releases.slice(0, limit), locked }
}

/** The listed versions alone. */
export const allowedReleases = async (
  req: PayloadRequest,
  entitlements: Entitlements,
  limit = LISTED_VERSIONS,
): Promise<ListedRelease[]> => (await releaseListing(req, entitlements, limit)).releases

export type ReleaseNotes = Pick<ChangelogEntry, 'title' | 'slug' | 'summary' | 'version'>

/** The published changelog entry of a version, as the customer may read it; null when there is none. */
export const releaseNotes = async (payload: Payload, user: User, version: string): Promise<ReleaseNotes | null> => {
  const { docs } = await payload.find({
    collection: 'changelog_entries',
    where: { and: [{ version: { equals: version } }, { _status: { equals: 'published' } }] },
    limit: 1,
    depth: 0,
    select: { title: true, slug: true, summary: true, version: true },
    draft: false,
    overrideAccess: false,
    user,
  })
  return docs[0] ?? null
}

export type ListedTemplate = Pick<Template, 'id' | 'name' | 'description' | 'category'>

/** The published catalogue, newest first (staff would otherwise also see unpublished ones, which 404 on download). */
export const publishedTemplates = async (payload: Payload, user: User) =>
  payload.find({
    collection: 'templates',
    where: { publishedAt: { less_than_equal: new Date().toISOString() } },
    sort: '-publishedAt',
    limit: LISTED_TEMPLATES,
    depth: 0,
    select: { name: true, description: true, category: true },
    overrideAccess: false,
    user,
  })

export type SupportThread = Pick<SupportRequest, 'id' | 'subject' | 'message' | 'status' | 'createdAt'> & {
  replies: Pick<SupportReply, 'id' | 'body' | 'fromStaff' | 'createdAt'>[]
}

/** The customer's own requests, newest first, each with its thread (oldest reply first). */
export const supportThreads = async (payload: Payload, user: User): Promise<SupportThread[]> => {
  const { docs: requests } = await payload.find({
    collection: 'support_requests',
    where: { user: { equals: user.id } },
    sort: '-createdAt',
    limit: LISTED_REQUESTS,
    depth: 0,
    select: { subject: true, message: true, status: true, createdAt: true },
    overrideAccess: false,
    user,
  })
  if (requests.length === 0) return []
  const { docs: replies } = await payload.find({
    collection: 'support_replies',
    where: { request: { in: requests.map((request) => request.id) } },
    // The newest, should a long history run past the cap; each thread is shown oldest first.
    sort: '-createdAt',
    limit: LISTED_REPLIES,
    depth: 0,
    select: { request: true, body: true, fromStaff: true, createdAt: true },
    overrideAccess: false,
    user,
  })
  return requests.map((request) => ({
    id: request.id,
    subject: request.subject,
    message: request.message,
    status: request.status,
    createdAt: request.createdAt,
    replies: replies
      .filter((reply) => relationId(reply.request) === request.id)
      .reverse()
      .map((reply) => ({ id: reply.id, body: reply.body, fromStaff: reply.fromStaff, createdAt: reply.createdAt })),
  }))
}

/** An owned license as its Team and Installations sections name it ("your Ultimate license ending in 7F3K"). */
export type ManagedLicense = { id: number; planName: string; keyEnd: string; status: License['status'] }

type OwnedRow = { license: Pick<License, 'id' | 'key' | 'status' | 'seats'>; plan: { name: string } | null }

const managed = ({ license, plan }: OwnedRow): ManagedLicense => ({
  id: license.id,
  planName: plan?.name ?? 'plan',
  keyEnd: license.key.slice(-4),
  status: license.status,
})

/** `readAt`: when the seats were read, the moment a pending invitation's expiry is judged against. */
export type Team = { license: ManagedLicense; readAt: number } & SeatList

/**
 * The owner's teams: each owned license that covers more than one person, with its seats as
 * GET /api/licenses/:id/seats lists them (one query per such license, in parallel).
 */
export const teamsOf = (req: PayloadRequest, user: User, owned: OwnedRow[]): Promise<Team[]> =>
  Promise.all(
    owned
      .filter(({ license }) => (license.seats ?? 1) > 1)
      .map(async (row) => ({
        license: managed(row),
        readAt: Date.now(),
        ...(await listSeats(req, user, row.license.id)),
      })),
  )

export type Installations = { license: ManagedLicense; limit: number | null; activations: ActivationView[] }

/**
 * The installations of each owned license whose plan limits them, or that apps have activated anyway
 * (a plan without a limit needs no activation, so its list is usually empty and not shown).
 */
export const installationsOf = async (req: PayloadRequest, owned: OwnedRow[]): Promise<Installations[]> => {
  const all = await Promise.all(
    owned.map(async (row) => ({ license: managed(row), ...(await activationsOf(req.payload, row.license.id, req)) })),
  )
  return all.filter((entry) => entry.limit !== null || entry.activations.length > 0)
}

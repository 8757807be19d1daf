import crypto from 'node:crypto'

import type { Payload, PayloadRequest } from 'payload'

import { track } from '../analytics/track'
import { asRateLimited, limiterOf } from '../auth/rate-limit'
import { hashToken } from '../auth/tokens'
import { PRODUCT_NAME } from '../config/product'
import { iso, num, type SqlRow } from '../db/rows'
import { license_seats, licenses, plans, users } from '../db/schema.generated'
import { bare, execute, inTransaction, sql } from '../db/transaction'
import { queueEmail } from '../email/send-task'
import { ServiceError } from '../http/errors'
import { queueCommunitySync } from '../licensing/entitlement-changes'
import { isLicenseUsable, licenseNotYours } from '../licensing/status'
import type { User } from '../payload-types'
import { emitWebhookEvent } from '../webhooks/emit'
import { seatData, type SeatRow as SeatEvent } from '../webhooks/payloads'
import type { SeatStatus } from './seat-status'
import { seatInvitationEmail, seatsEndedEmail } from './emails'

/** How long a claim link works (docs/TEAMS.md). */
const CLAIM_TTL_MS = 7 * 24 * 3600 * 1000

export type SeatView = {
  id: number
  email: string
  status: SeatStatus
  claimedAt: string | null
  expiresAt: string | null
  createdAt: string
}

export type SeatList = {
  /** People the license covers, its owner included. */
  seats: number
  /** Seats taken: the owner's and every pending or claimed member's. */
  used: number
  owner: { email: string }
  members: SeatView[]
}

export type SeatContext = { productName: string; serverUrl: string }

type OwnedLicense = {
  id: number
  ownerId: number | null
  ownerEmail: string | null
  seats: number
  status: string
  validUntil: string | null
  planName: string
}

/**
 * The license `id` as its owner sees it, optionally locked for the rest of the transaction (every
 * seat change takes this lock first, so two requests never both take the last seat). A license of
 * someone else is 404, as the upgrade endpoints answer; its member gets 403 `not_license_owner`.
 */
export const ownedLicense = async (
  req: PayloadRequest,
  user: Pick<User, 'id'>,
  id: number,
  options: { lock?: boolean } = {},
): Promise<OwnedLicense> => {
  const [row] = await execute<
    Pick<SqlRow<typeof licenses>, 'id' | 'user_id' | 'seats' | 'status' | 'valid_until'> & {
      // LEFT JOIN: a license may have no owner account.
      owner_email: string | null
      plan_name: string
      is_member: boolean
    }
  >(
    req,
    sql`SELECT ${licenses.id}, ${licenses.user}, ${users.email} AS owner_email, ${licenses.seats}, ${licenses.status}, ${licenses.validUntil}, ${plans.name} AS plan_name,
          EXISTS (SELECT 1 FROM ${license_seats} WHERE ${license_seats.license} = ${licenses.id} AND ${license_seats.member} = ${user.id}
                  AND ${license_seats.status} = 'claimed') AS is_member
        FROM ${licenses} JOIN ${plans} ON ${plans.id} = ${licenses.plan} LEFT JOIN ${users} ON ${users.id} = ${licenses.user}
        WHERE ${licenses.id} = ${id}${options.lock ? sql` FOR UPDATE OF ${licenses}` : sql``}`,
  )
  if (!row) throw licenseNotYours()
  if (row.user_id !== user.id) {
    if (row.is_member) throw new ServiceError(403, 'not_license_owner', "Only the license's owner manages its seats.")
    throw licenseNotYours()
  }
  return {
    id: row.id,
    ownerId: row.user_id,
    ownerEmail: row.owner_email,
    seats: Number(row.seats),
    status: row.status,
    validUntil: iso(row.valid_until),
    planName: row.plan_name,
  }
}

type SeatRow = Pick<
  SqlRow<typeof license_seats>,
  'id' | 'email' | 'status' | 'member_id' | 'claimed_at' | 'claim_expires_at' | 'created_at'
>

const SEAT_COLUMNS = sql`${license_seats.id}, ${license_seats.email}, ${license_seats.status}, ${license_seats.member}, ${license_seats.claimedAt}, ${license_seats.claimExpiresAt}, ${license_seats.createdAt}`

/** A seat as its webhook events (seat.claimed, seat.revoked) describe it. */
type SeatEventRow = Pick<
  SqlRow<typeof license_seats>,
  'id' | 'license_id' | 'email' | 'status' | 'member_id' | 'claimed_at' | 'revoked_at'
>

const SEAT_EVENT_COLUMNS = sql`${license_seats.id}, ${license_seats.license} AS license_id, ${license_seats.email}, ${license_seats.status},
  ${license_seats.member} AS member_id, ${license_seats.claimedAt}, ${license_seats.revokedAt}`

const seatEventOf = (row: SeatEventRow): SeatEvent => ({
  id: Number(row.id),
  licenseId: Number(row.license_id),
  email: row.email,
  status: row.status,
  memberId: num(row.member_id),
  claimedAt: iso(row.claimed_at),
  revokedAt: iso(row.revoked_at),
})

const seatView = (row: SeatRow): SeatView => ({
  id: row.id,
  email: row.email,
  status: row.status,
  claimedAt: iso(row.claimed_at),
  expiresAt: row.status === 'pending' ? iso(row.claim_expires_at) : null,
  createdAt: iso(row.created_at)!,
})

/** The seats that count: pending and claimed (a revoked one frees its place). */
const liveSeats = (req: PayloadRequest, licenseId: number) =>
  execute<SeatRow>(
    req,
    sql`SELECT ${SEAT_COLUMNS} FROM ${license_seats} WHERE ${license_seats.license} = ${licenseId} AND ${license_seats.status} <> 'revoked'
        ORDER BY ${license_seats.createdAt}, ${license_seats.id}`,
  )

const listOf = (license: OwnedLicense, rows: SeatRow[]): SeatList => ({
  seats: license.seats,
  used: 1 + rows.length,
  owner: { email: license.ownerEmail ?? '' },
  members: rows.map(seatView),
})

/** GET /api/licenses/:id/seats: the owner's view of the license's seats. */
export const listSeats = async (req: PayloadRequest, user: User, licenseId: number): Promise<SeatList> => {
  const license = await ownedLicense(req, user, licenseId)
  return listOf(license, await liveSeats(req, licenseId))
}

const normalEmail = (email: string) => email.trim().toLowerCase()

/**
 * POST /api/licenses/:id/seats {email}: a pending seat and its claim link, emailed. The answer is the
 * same whatever the address (whether it has an account is never looked at here), so assigning tells
 * the owner nothing about who has an account. Under the license's lock: the seat count is read and
 * the row written by one request at a time, so concurrent assignments never pass the count.
 */
export const assignSeat = async (
  payload: Payload,
  user: User,
  licenseId: number,
  rawEmail: string,
  context: SeatContext,
): Promise<SeatView> => {
  // Each assignment sends an email: one account must not turn the service into a mailer.
  try {
    await limiterOf(payload, 'seat_invites:user').consume(String(user.id))
  } catch (error) {
    throw asRateLimited(error, 'seat invitations')
  }
  const email = normalEmail(rawEmail)
  const token = crypto.randomBytes(32).toString('base64url')
  const expiresAt = new Date(Date.now() + CLAIM_TTL_MS).toISOString()
  return inTransaction(payload, async (req) => {
    const license = await ownedLicense(req, user, licenseId, { lock: true })
    if (license.status !== 'active' || !isLicenseUsable({ status: 'active', validUntil: license.validUntil })) {
      throw new ServiceError(409, 'license_inactive', 'This license is not active: its seats cannot be assigned.')
    }
    if (email === normalEmail(license.ownerEmail ?? '')) {
      throw new ServiceError(409, 'seat_already_assigned', "You hold this license's first seat yourself.")
    }
    const rows = await liveSeats(req, licenseId)
    if (rows.some((row) => row.email === email))
      throw new ServiceError(409, 'seat_already_assigned', 'This email already has a seat on this license.')
    if (1 + rows.length >= license.seats) {
      throw new ServiceError(
        409,
        'seats_exhausted',
        `Every seat of this license is taken (${license.seats} of ${license.seats}). Revoke one first, or buy a license with more seats.`,
        undefined,
        {
          seats: license.seats,
          used: 1 + rows.length,
        },
      )
    }
    const [row] = await execute<SeatRow>(
      req,
      sql`INSERT INTO ${license_seats} (${bare(license_seats.license, license_seats.email, license_seats.status, license_seats.claimTokenHash, license_seats.claimExpiresAt)},
            ${bare(license_seats.updatedAt, license_seats.createdAt)})
          VALUES (${licenseId}, ${email}, 'pending', ${hashToken(token)}, ${expiresAt}, now(), now())
          RETURNING ${SEAT_COLUMNS}`,
    )
    const seat = row!
    await queueEmail(req, {
      to: email,
      ...seatInvitationEmail({
        productName: context.productName,
        planName: license.planName,
        ownerEmail: license.ownerEmail ?? '',
        claimUrl: `${context.serverUrl}/auth/callback?type=seat&token=${token}`,
        expiresAt,
      }),
    })
    await track(req, {
      name: 'seat_assigned',
      userId: user.id,
      properties: { licenseId, seatId: seat.id },
      sourceId: `seat:${seat.id}`,
    })
    return seatView(seat)
  })
}

/**
 * DELETE /api/licenses/:id/seats/:seatId: the seat ends at once (entitlements read claimed seats
 * only), its link stops working, and the member's repository access is withdrawn by the job unless
 * another license still grants it. Revoking a revoked seat changes nothing.
 */
export const revokeSeat = async (payload: Payload, user: User, licenseId: number, seatId: number): Promise<void> => {
  await inTransaction(payload, async (req) => {
    await ownedLicense(req, user, licenseId, { lock: true })
    await endSeat(req, licenseId, seatId, { by: 'owner', userId: user.id })
  })
}

/** Ends one seat of `licenseId` in the caller's transaction (the owner's revoke, staff's action). */
/** Who ended a seat: its license's owner, support, the billing (the paid quantity dropped below it), or an account's erasure. */
export type SeatEnder = 'owner' | 'staff' | 'billing' | 'account_deletion'

export const endSeat = async (
  req: PayloadRequest,
  licenseId: number | null,
  seatId: number,
  actor: { by: SeatEnder; userId: number | null },
) => {
  const [seat] = await execute<Pick<SqlRow<typeof license_seats>, 'id' | 'status' | 'member_id' | 'license_id'>>(
    req,
    sql`SELECT ${license_seats.id}, ${license_seats.status}, ${license_seats.member}, ${license_seats.license} FROM ${license_seats}
        WHERE ${license_seats.id} = ${seatId}${licenseId === null ? sql`` : sql` AND ${license_seats.license} = ${licenseId}`} FOR UPDATE`,
  )
  if (!seat) throw new ServiceError(404, 'seat_not_found', 'This license has no seat with this id.')
  if (seat.status === 'revoked') return { changed: false, seat }
  const [ended] = await execute<SeatEventRow>(
    req,
    sql`UPDATE ${license_seats} SET ${bare(license_seats.status)} = 'revoked', ${bare(license_seats.revokedAt)} = now(),
          ${bare(license_seats.claimTokenHash)} = NULL, ${bare(license_seats.updatedAt)} = now()
        WHERE ${license_seats.id} = ${seatId}
        RETURNING ${SEAT_EVENT_COLUMNS}`,
  )
  const memberId = num(seat.member_id)
  if (memberId !== null) {
    await req.payload.jobs.queue({ task: 'withdrawRepoAccess', input: { userId: memberId }, req })
    await queueCommunitySync(req, [memberId])
  }
  await track(req, {
    name: 'seat_revoked',
    userId: actor.userId,
    properties: { licenseId: seat.license_id, seatId, wasClaimed: seat.status === 'claimed', by: actor.by },
    sourceId: `seat:${seatId}`,
  })
  await emitWebhookEvent(req, {
    type: 'seat.revoked',
    sourceKey: `seat.revoked:${seatId}`,
    data: () => seatData(seatEventOf(ended!), { revokedBy: actor.by }),
  })
  return { changed: true, seat }
}

/**
 * The seats the paid quantity no longer covers, ended: when a subscription's quantity drops (the billing
 * portal, the processor's API) below the seats in use, the newest seats beyond it (claimed or pending,
 * by when they were given) end as a revoke does, repository access included, and the owner is emailed
 * which ones. The caller holds the license's lock (the webhook's sync took it), so no seat is given
 * meanwhile. Returns the seats ended, newest first.
 */
export const endSeatsBeyondPaid = async (req: PayloadRequest, licenseId: number): Promise<SeatView[]> => {
  const [license] = await execute<
    Pick<SqlRow<typeof licenses>, 'seats'> & {
      // LEFT JOIN: a license may have no owner account.
      owner_email: string | null
      plan_name: string
    }
  >(
    req,
    sql`SELECT ${licenses.seats}, ${users.email} AS owner_email, ${plans.name} AS plan_name
        FROM ${licenses} JOIN ${plans} ON ${plans.id} = ${licenses.plan} LEFT JOIN ${users} ON ${users.id} = ${licenses.user}
        WHERE ${licenses.id} = ${licenseId}`,
  )
  if (!license) return []
  const seats = Math.max(1, Number(license.seats))
  const live = await liveSeats(req, licenseId)
  // The owner holds the first seat; members keep theirs in the order they were given.
  const beyond = live.slice(Math.max(0, seats - 1)).reverse()
  if (beyond.length === 0) return []
  for (const seat of beyond) await endSeat(req, licenseId, seat.id, { by: 'billing', userId: null })
  const ended = beyond.map(seatView)
  if (license.owner_email) {
    await queueEmail(req, {
      to: license.owner_email,
      ...seatsEndedEmail({
        productName: PRODUCT_NAME,
        planName: license.plan_name,
        seats,
        ended: ended.map((seat) => ({ email: seat.email, joined: seat.status === 'claimed' })),
        dashboardUrl: `${req.payload.config.serverURL}/dashboard`,
      }),
    })
  }
  return ended
}

export type ClaimOutcome =
  | { result: 'claimed'; licenseId: number }
  | {
      result:
        | 'invalid_link'
        | 'sign_in'
        | 'wrong_account'
        | 'unverified'
        | 'own_license'
        | 'already_member'
        | 'license_inactive'
    }

const TOKEN = /^[A-Za-z0-9_-]{20,100}$/

/**
 * The claim link, opened by `user` (null when signed out). The link signs nobody in: only a signed-in,
 * verified account whose email is the seat's can take the seat, so a forwarded link is useless to
 * anyone else. The seat is taken by one UPDATE that also ends the token, so a second use (or two tabs)
 * finds nothing to claim.
 */
export const claimSeat = async (
  payload: Payload,
  token: string,
  user: Pick<User, 'id' | 'email' | 'emailVerified'> | null,
): Promise<ClaimOutcome> => {
  if (!TOKEN.test(token)) return { result: 'invalid_link' }
  const tokenHash = hashToken(token)
  return inTransaction(payload, async (req) => {
    const [seat] = await execute<
      Pick<SqlRow<typeof license_seats>, 'id' | 'email' | 'license_id'> &
        Pick<SqlRow<typeof licenses>, 'valid_until'> & {
          owner_id: number | null
          license_status: string
        }
    >(
      req,
      sql`SELECT ${license_seats.id}, ${license_seats.email}, ${license_seats.license}, ${licenses.user} AS owner_id, ${licenses.status} AS license_status, ${licenses.validUntil}
          FROM ${license_seats} JOIN ${licenses} ON ${licenses.id} = ${license_seats.license}
          WHERE ${license_seats.claimTokenHash} = ${tokenHash} AND ${license_seats.status} = 'pending' AND ${license_seats.claimExpiresAt} > now()
          FOR UPDATE OF ${license_seats}`,
    )
    // Locked: a second tab waits here, then finds the seat claimed (no longer pending) and gets invalid_link.
    if (!seat) return { result: 'invalid_link' as const }
    if (!user) return { result: 'sign_in' as const }
    if (normalEmail(user.email) !== seat.email) return { result: 'wrong_account' as const }
    if (!user.emailVerified) return { result: 'unverified' as const }
    if (seat.owner_id === user.id) return { result: 'own_license' as const }
    if (seat.license_status !== 'active' || !isLicenseUsable({ status: 'active', validUntil: iso(seat.valid_until) })) {
      return { result: 'license_inactive' as const }
    }
    const [already] = await execute(
      req,
      sql`SELECT 1 FROM ${license_seats} WHERE ${license_seats.license} = ${seat.license_id} AND ${license_seats.member} = ${user.id} AND ${license_seats.status} = 'claimed'`,
    )
    if (already) return { result: 'already_member' as const }
    const claimed = await execute<SeatEventRow>(
      req,
      sql`UPDATE ${license_seats} SET ${bare(license_seats.status)} = 'claimed', ${bare(license_seats.member)} = ${user.id}, ${bare(license_seats.claimedAt)} = now(),
            ${bare(license_seats.claimTokenHash)} = NULL, ${bare(license_seats.updatedAt)} = now()
          WHERE ${license_seats.id} = ${seat.id} AND ${license_seats.status} = 'pending' AND ${license_seats.claimTokenHash} = ${tokenHash}
            AND ${license_seats.claimExpiresAt} > now()
          RETURNING ${SEAT_EVENT_COLUMNS}`,
    )
    if (claimed.length === 0) return { result: 'invalid_link' as const }
    await queueCommunitySync(req, [user.id])
    await track(req, {
      name: 'seat_claimed',
      userId: user.id,
      properties: { licenseId: seat.license_id, seatId: seat.id },
      sourceId: `seat:${seat.id}`,
    })
    await emitWebhookEvent(req, {
      type: 'seat.claimed',
      sourceKey: `seat.claimed:${seat.id}`,
      data: () => seatData(seatEventOf(claimed[0]!)),
    })
    return { result: 'claimed' as const, licenseId: seat.license_id }
  })
}

export type HeldSeat = {
  seatId: number
  licenseId: number
  planName: string
  ownerEmail: string | null
  claimedAt: string | null
  licenseStatus: string
}

/** The seats `userId` holds on other people's licenses (the member's dashboard). */
export const seatsHeldBy = async (payload: Payload, userId: number, req?: PayloadRequest): Promise<HeldSeat[]> => {
  const rows = await execute<
    Pick<SqlRow<typeof license_seats>, 'id' | 'license_id' | 'claimed_at'> &
      Pick<SqlRow<typeof licenses>, 'status'> & {
        plan_name: string
        // LEFT JOIN: a license may have no owner account.
        owner_email: string | null
      }
  >(
    req ?? ({ payload } as PayloadRequest),
    sql`SELECT ${license_seats.id}, ${license_seats.license}, ${plans.name} AS plan_name, ${users.email} AS owner_email, ${license_seats.claimedAt}, ${licenses.status}
        FROM ${license_seats} JOIN ${licenses} ON ${licenses.id} = ${license_seats.license} JOIN ${plans} ON ${plans.id} = ${licenses.plan}
        LEFT JOIN ${users} ON ${users.id} = ${licenses.user}
        WHERE ${license_seats.member} = ${userId} AND ${license_seats.status} = 'claimed'
        ORDER BY ${license_seats.claimedAt} DESC`,
  )
  return rows.map((row) => ({
    seatId: row.id,
    licenseId: row.license_id,
    planName: row.plan_name,
    ownerEmail: row.owner_email,
    claimedAt: iso(row.claimed_at),
    licenseStatus: row.status,
  }))
}

/** The members of a license with a claimed seat: whose repository access follows the license too. */
export const claimedMembersOf = async (req: PayloadRequest, licenseId: number): Promise<number[]> =>
  (
    await execute<Pick<SqlRow<typeof license_seats>, 'member_id'>>(
      req,
      sql`SELECT ${license_seats.member} FROM ${license_seats} WHERE ${license_seats.license} = ${licenseId} AND ${license_seats.status} = 'claimed' AND ${license_seats.member} IS NOT NULL`,
    )
  ).map((row) => Number(row.member_id))

/**
 * An erased account's seats (src/privacy/erasure.ts), in the erasure's transaction: the seats it holds on
 * other people's licenses are released and the seats its own licenses gave are revoked, each as a revoke
 * does (seat.revoked, the member's repository access withdrawn); the seats it held then name the erased
 * address instead of the old one. Returns how many seats ended.
 */
export const endSeatsOfErasedAccount = async (req: PayloadRequest, userId: number, erasedEmail: string) => {
  const live = await execute<Pick<SqlRow<typeof license_seats>, 'id'>>(
    req,
    sql`SELECT ${license_seats.id} FROM ${license_seats}
        WHERE ${license_seats.status} <> 'revoked'
          AND (${license_seats.member} = ${userId}
               OR ${license_seats.license} IN (SELECT ${licenses.id} FROM ${licenses} WHERE ${licenses.user} = ${userId}))
        ORDER BY ${license_seats.id}`,
  )
  for (const seat of live) await endSeat(req, null, seat.id, { by: 'account_deletion', userId: null })
  await execute(
    req,
    sql`UPDATE ${license_seats} SET ${bare(license_seats.email)} = ${erasedEmail}, ${bare(license_seats.updatedAt)} = now()
        WHERE ${license_seats.member} = ${userId}`,
  )
  return live.length
}

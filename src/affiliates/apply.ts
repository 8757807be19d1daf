import crypto from 'node:crypto'

import type { CollectionAfterChangeHook, PayloadRequest } from 'payload'

import { affiliates } from '../db/schema.generated'
import { bare, execute, sql } from '../db/transaction'
import { queueEmail } from '../email/send-task'
import { ServiceError } from '../http/errors'
import type { Affiliate, User } from '../payload-types'
import { affiliateApprovedEmail } from './emails'
import type { AffiliatesRuntime } from './runtime'
import { AFFILIATE_CODE } from './states'

/** An affiliate's link: any page of the site with `?via=<code>`. */
export const affiliateLink = (serverUrl: string, code: string) => `${serverUrl}/?via=${encodeURIComponent(code)}`

/** A code for an applicant who chose none: 10 letters and digits. */
const generatedCode = () =>
  crypto
    .randomBytes(8)
    .toString('base64url')
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '')
    .slice(0, 10)
    .padEnd(10, '0')

/**
 * A customer applies to the program (POST /api/affiliates): one application per account; the code
 * lowercased (generated when absent); the rate the default one; pending, or active at once with
 * AFFILIATE_AUTO_APPROVE. Nothing the customer sends beyond the code and payout email is taken.
 */
export const applyAsAffiliate = async (
  req: PayloadRequest,
  runtime: AffiliatesRuntime,
  user: User,
  application: { code?: string; payoutEmail: string },
): Promise<{ code: string; status: string }> => {
  const code = application.code === undefined ? generatedCode() : application.code.trim().toLowerCase()
  if (!AFFILIATE_CODE.test(code)) {
    throw new ServiceError(400, 'invalid_request', 'code: 3 to 32 letters, digits or hyphens.')
  }
  const status = runtime.settings.autoApprove ? 'active' : 'pending'
  const a = affiliates
  // The account's unique row and the code's unique index decide between two applications at once.
  const [row] = await execute<{ id: number; code: string; status: string }>(
    req,
    sql`INSERT INTO ${a} (${bare(a.user, a.code, a.status, a.rateBps, a.payoutEmail, a.approvedAt, a.updatedAt, a.createdAt)})
        VALUES (${user.id}, ${code}, ${status}, ${runtime.settings.commissionBps}, ${application.payoutEmail},
          ${status === 'active' ? new Date().toISOString() : null}, now(), now())
        ON CONFLICT DO NOTHING
        RETURNING ${a.id}, ${a.code}, ${a.status}`,
  )
  if (row) {
    if (row.status === 'active') await sendApprovalOnce(req, runtime, Number(row.id))
    return { code: row.code, status: row.status }
  }
  // The conflict waited for the other row to commit: this statement sees it.
  const mine = await execute(req, sql`SELECT 1 FROM ${a} WHERE ${a.user} = ${user.id}`)
  if (mine.length > 0) {
    throw new ServiceError(409, 'already_applied', 'This account has already applied to the affiliate program.')
  }
  throw new ServiceError(409, 'code_taken', `The code ${code} is taken: choose another.`)
}

/** The approval email, queued once per affiliate whatever the number of saves (the row remembers it). */
const sendApprovalOnce = async (req: PayloadRequest, runtime: AffiliatesRuntime, affiliateId: number) => {
  const a = affiliates
  const [claimed] = await execute<{ code: string; payout_email: string }>(
    req,
    sql`UPDATE ${a} SET ${bare(a.approvalEmailedAt)} = now(), ${bare(a.approvedAt)} = coalesce(${a.approvedAt}, now())
        WHERE ${a.id} = ${affiliateId} AND ${a.status} = 'active' AND ${a.approvalEmailedAt} IS NULL
        RETURNING ${a.code}, ${a.payoutEmail}`,
  )
  if (!claimed) return
  const { subject, text, html } = affiliateApprovedEmail(
    runtime.productName,
    affiliateLink(runtime.serverUrl, claimed.code),
    `${runtime.serverUrl}/dashboard#affiliate`,
  )
  await queueEmail(req, { to: claimed.payout_email, subject, text, html })
}

/** An admin's save in the admin: becoming active sends the approval email once. */
export const emailOnApproval =
  (runtime: () => AffiliatesRuntime): CollectionAfterChangeHook<Affiliate> =>
  async ({ doc, req }) => {
    if (doc.status === 'active' && !doc.approvalEmailedAt) await sendApprovalOnce(req, runtime(), doc.id)
    return doc
  }

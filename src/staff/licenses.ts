import type { PayloadRequest } from 'payload'

import { relationId } from '../db/relations'
import { licenses } from '../db/schema.generated'
import { execute, lockKey, sql } from '../db/transaction'
import { ServiceError } from '../http/errors'
import { STAFF_ACTION, type StaffActionContext } from '../licensing/staff-action'
import type { License } from '../payload-types'
import { inStaffTransaction, recordAudit } from './audit'

export type LicenseActionResult = { license: Pick<License, 'id' | 'status' | 'override'>; auditLogId: number }
export type LicenseEmailResult = { license: Pick<License, 'id'>; to: string; auditLogId: number }

const notFound = () => new ServiceError(404, 'license_not_found', 'There is no license with this id.')

/** Lock the license's row (as the webhook's sync does) and read it, inside the action's transaction. */
const lockedLicense = async (tx: PayloadRequest, id: number): Promise<License> => {
  const [row] = await execute(tx, sql`SELECT ${licenses.id} FROM ${licenses} WHERE ${licenses.id} = ${id} FOR UPDATE`)
  if (!row) throw notFound()
  return tx.payload.findByID({ collection: 'licenses', id, depth: 0, req: tx, overrideAccess: true })
}

/**
 * Revoke or restore a license by hand: the same staff override as the admin's form (the status
 * follows, the licensing hooks write the audit row and the analytics event), with the reason given.
 * Revoking a revoked license or restoring an active one changes nothing and answers 409.
 */
export const overrideLicense = (
  req: PayloadRequest,
  id: number,
  override: 'revoked' | 'active',
  reason: string,
): Promise<LicenseActionResult> =>
  inStaffTransaction(req, async (tx) => {
    const license = await lockedLicense(tx, id)
    if (override === 'revoked' && license.status === 'revoked')
      throw new ServiceError(409, 'license_already_revoked', 'This license is revoked already.')
    if (override === 'active' && license.status === 'active')
      throw new ServiceError(409, 'license_already_active', 'This license is active already.')
    const action: StaffActionContext = {}
    const updated = await tx.payload.update({
      collection: 'licenses',
      id,
      data: { override, overrideReason: reason },
      depth: 0,
      req: tx,
      overrideAccess: false,
      context: { [STAFF_ACTION]: action },
    })
    if (action.auditLogId === undefined) throw new Error(`license ${id}: the override was not recorded`)
    return { license: { id, status: updated.status, override: updated.override }, auditLogId: action.auditLogId }
  })

/**
 * Send the license email again (to the user's address, or the checkout email): the existing job,
 * queued with the audit row in one transaction. Clearing `emailSentAt` is what lets the job send once
 * more; a job still waiting (SMTP down) and this one then send one email between them.
 */
export const resendLicenseEmail = (req: PayloadRequest, id: number, reason: string): Promise<LicenseEmailResult> =>
  inStaffTransaction(req, async (tx) => {
    // The job's own lock: no runner is between its check and its record while we clear the record.
    await lockKey(tx, `license-email:${id}`)
    const license = await lockedLicense(tx, id)
    if (license.status !== 'active') {
      throw new ServiceError(
        409,
        'license_not_active',
        `This license is ${license.status}: its key opens nothing, so it is not sent again.`,
      )
    }
    const userId = relationId(license.user)
    const owner = userId
      ? await tx.payload.findByID({
          collection: 'users',
          id: userId,
          depth: 0,
          req: tx,
          overrideAccess: true,
          disableErrors: true,
        })
      : null
    const to = owner?.email ?? license.email
    if (!to) throw new ServiceError(409, 'no_recipient', 'This license has neither a user nor an email to send it to.')
    await tx.payload.update({
      collection: 'licenses',
      id,
      data: { emailSentAt: null },
      depth: 0,
      req: tx,
      overrideAccess: true,
    })
    await tx.payload.jobs.queue({ task: 'sendLicenseEmail', input: { licenseId: id }, req: tx })
    const auditLogId = await recordAudit(tx, {
      action: 'license.resend_email',
      targetCollection: 'licenses',
      targetId: String(id),
      reason,
      before: { emailSentAt: license.emailSentAt ?? null },
      after: { to },
    })
    return { license: { id }, to, auditLogId }
  })

import type { PayloadRequest } from 'payload'

import { ServiceError } from '../http/errors'
import { removeActivationByStaff } from '../teams/activations'
import { endSeat } from '../teams/seats'
import { inStaffTransaction, recordAudit } from './audit'

/**
 * Support revokes a team seat (a member who left, a seat given by mistake): as the owner's revoke,
 * with the member's repository access withdrawn by the job, and an audit row.
 */
export const revokeSeatByStaff = (req: PayloadRequest, seatId: number, reason: string) =>
  inStaffTransaction(req, async (tx) => {
    const { changed, seat } = await endSeat(tx, null, seatId, {
      by: 'staff',
      userId: typeof req.user?.id === 'number' ? req.user.id : null,
    })
    if (!changed) throw new ServiceError(409, 'seat_already_revoked', 'This seat is revoked already.')
    const auditLogId = await recordAudit(tx, {
      action: 'seat.revoke',
      targetCollection: 'license_seats',
      targetId: String(seatId),
      reason,
      before: { status: seat.status },
      after: { status: 'revoked' },
    })
    return { seat: { id: seatId, status: 'revoked' as const, license: seat.license_id }, auditLogId }
  })

/** Support removes an activation: its place under the limit is free, and the customer's daily count is untouched. */
export const removeActivationWithAudit = (req: PayloadRequest, activationId: number, reason: string) =>
  inStaffTransaction(req, async (tx) => {
    const { licenseId, fingerprint } = await removeActivationByStaff(tx, activationId)
    const auditLogId = await recordAudit(tx, {
      action: 'activation.remove',
      targetCollection: 'license_activations',
      targetId: String(activationId),
      reason,
      before: { licenseId, fingerprint, active: true },
      after: { active: false },
    })
    return { activation: { id: activationId, license: licenseId, removed: true }, auditLogId }
  })

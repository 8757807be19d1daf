import type { PayloadRequest } from 'payload'
import { z } from 'zod'

import { inTransaction } from '../db/transaction'
import type { AuditLog } from '../payload-types'

/** Every support action carries why it was taken: 1 to 500 characters, kept in `audit_log`. */
export const staffReasonBody = z.object({
  reason: z.string('say why (reason)').trim().min(1, 'say why (reason)').max(500, 'at most 500 characters'),
})

export type AuditEntry = Pick<AuditLog, 'action' | 'targetCollection' | 'targetId' | 'reason' | 'before' | 'after'>

/** One `audit_log` row for a staff action by `req.user`, in the transaction `req` carries. */
export const recordAudit = async (req: PayloadRequest, entry: AuditEntry): Promise<number> => {
  const row = await req.payload.create({
    collection: 'audit_log',
    data: { ...entry, actor: typeof req.user?.id === 'number' ? req.user.id : null },
    req,
    overrideAccess: true,
  })
  return row.id
}

/**
 * One database transaction for a staff action, acting as the request's staff user: Local API calls
 * given `tx` check that user's access, and hooks record them as the actor.
 */
export const inStaffTransaction = <T>(req: PayloadRequest, work: (tx: PayloadRequest) => Promise<T>): Promise<T> =>
  inTransaction(req.payload, (tx) => {
    tx.user = req.user
    return work(tx)
  })

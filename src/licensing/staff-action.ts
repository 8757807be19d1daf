/**
 * `req.context` key of a staff action (src/staff/licenses.ts): its reason was given with the request,
 * so it may repeat an earlier one, and the audit entry's id is handed back in it.
 */
export const STAFF_ACTION = 'staffAction'
export type StaffActionContext = { auditLogId?: number }

export const staffActionOf = (context: Record<string, unknown>): StaffActionContext | null => {
  const action = context[STAFF_ACTION]
  return action && typeof action === 'object' ? action : null
}

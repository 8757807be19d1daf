import type { CollectionAfterChangeHook, CollectionBeforeChangeHook } from 'payload'
import { ValidationError } from 'payload'

import { relationId } from '../src/db/relations'
import { staffActionOf } from '../src/licensing/staff-action'
import { licenseStateFor } from '../src/licensing/status'
import { factsForLicense } from '../src/licensing/sync'
import type { License } from '../src/payload-types'

/** The licenses collection's hooks (collections/Licenses.ts): staff overrides and their audit trail. */

/**
 * Support revokes or restores a license by changing `override`, with a reason. The status follows:
 * revoked, active, or (override back to none) whatever the purchase itself earns.
 */
export const applyStaffOverride =
  (graceDays: number): CollectionBeforeChangeHook<License> =>
  async ({ data, originalDoc, operation, req }) => {
    if (
      operation !== 'update' ||
      !originalDoc ||
      data.override === undefined ||
      data.override === originalDoc.override
    ) {
      return data
    }
    const reason = typeof data.overrideReason === 'string' ? data.overrideReason.trim() : ''
    // In the admin's form the last reason is still in the field: a change there needs a new one.
    const repeated = reason === (originalDoc.overrideReason ?? '').trim() && !staffActionOf(req.context)
    if (!reason || repeated) {
      throw new ValidationError(
        {
          collection: 'licenses',
          errors: [{ path: 'overrideReason', message: 'Say why the license is revoked or restored.' }],
        },
        req.t,
      )
    }
    const now = new Date().toISOString()
    if (data.override === 'revoked') {
      return {
        ...data,
        overrideReason: reason,
        status: 'revoked',
        revokedAt: now,
        revokedBy: req.user?.id ?? null,
        revokedReason: reason,
      }
    }
    if (data.override === 'active') {
      return {
        ...data,
        overrideReason: reason,
        status: 'active',
        validUntil: null,
        revokedAt: null,
        revokedBy: null,
        revokedReason: null,
      }
    }
    const facts = await factsForLicense(req, originalDoc)
    const state = facts ? licenseStateFor(facts, graceDays) : null
    return {
      ...data,
      overrideReason: reason,
      status: state?.status ?? 'expired',
      validUntil: state?.validUntil?.toISOString() ?? null,
      ...(state?.status === 'revoked' ? {} : { revokedAt: null, revokedBy: null, revokedReason: null }),
    }
  }

/** Every staff override lands in the audit log and the analytics events, in the same transaction. */
export const recordStaffOverride: CollectionAfterChangeHook<License> = async ({ doc, previousDoc, operation, req }) => {
  if (operation !== 'update' || doc.override === previousDoc.override) return doc
  const action =
    doc.override === 'revoked'
      ? 'license.revoke'
      : doc.override === 'active'
        ? 'license.restore'
        : 'license.override_cleared'
  const entry = await req.payload.create({
    collection: 'audit_log',
    data: {
      actor: req.user?.id ?? null,
      action,
      targetCollection: 'licenses',
      targetId: String(doc.id),
      reason: doc.overrideReason ?? null,
      before: { status: previousDoc.status, override: previousDoc.override },
      after: { status: doc.status, override: doc.override },
    },
    req,
    overrideAccess: true,
    depth: 0,
  })
  const staffAction = staffActionOf(req.context)
  if (staffAction) staffAction.auditLogId = entry.id
  await req.payload.create({
    collection: 'analytics_events',
    data: {
      name: doc.status === 'revoked' ? 'license_revoked' : 'license_restored',
      user: relationId(doc.user),
      // The reason is a staff note: it stays in the audit log, which customers cannot read.
      properties: {
        licenseId: doc.id,
        by: req.context.overrideBy === 'account_deletion' ? 'account_deletion' : 'staff',
        auditLogId: entry.id,
      },
      occurredAt: new Date().toISOString(),
      sourceEventId: `audit:${entry.id}`,
    },
    req,
    overrideAccess: true,
    depth: 0,
  })
  return doc
}

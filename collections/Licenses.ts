import type { CollectionConfig } from 'payload'

import { or, ownRows } from '../src/access/compose'
import { admins, adminsField, staff, staffField } from '../src/access/roles'
import { applyStaffOverride, recordStaffOverride } from './Licenses.hooks'
import { LICENSE_STATUSES } from '../src/licensing/status'
import { staffActionsField } from './staff-actions'

/**
 * Licenses: the single source of access. The webhook grants and updates them from purchases and
 * subscriptions; support revokes or restores one by setting `override` with a reason.
 */
export const createLicensesCollection = (options: { graceDays: number }): CollectionConfig => ({
  slug: 'licenses',
  admin: {
    useAsTitle: 'key',
    defaultColumns: ['key', 'user', 'email', 'plan', 'status', 'source', 'grantedAt'],
    group: 'Licensing',
    listSearchableFields: ['key', 'email'],
    description: 'Support: open a license to revoke or restore it, or to send its email again (Support actions, with a reason).',
  },
  access: {
    read: or(staff, ownRows('user')),
    create: admins,
    update: staff,
    delete: admins,
  },
  hooks: {
    beforeChange: [applyStaffOverride(options.graceDays)],
    afterChange: [recordStaffOverride],
  },
  fields: [
    staffActionsField(['license.revoke', 'license.restore', 'license.resendEmail']),
    {
      name: 'key',
      type: 'text',
      required: true,
      unique: true,
      access: { update: () => false },
      admin: { readOnly: true },
    },
    { name: 'user', type: 'relationship', relationTo: 'users', index: true, access: { update: adminsField } },
    { name: 'email', type: 'email', index: true, access: { update: adminsField } },
    { name: 'plan', type: 'relationship', relationTo: 'plans', required: true, access: { update: adminsField } },
    {
      name: 'source',
      type: 'select',
      required: true,
      options: ['one_time_purchase', 'subscription', 'manual'],
      access: { update: adminsField },
    },
    {
      name: 'oneTimePurchase',
      type: 'relationship',
      relationTo: 'one_time_purchases',
      unique: true,
      access: { update: adminsField },
    },
    { name: 'subscription', type: 'relationship', relationTo: 'user_subscriptions', unique: true, access: { update: adminsField } },
    {
      name: 'status',
      type: 'select',
      required: true,
      index: true,
      options: [...LICENSE_STATUSES],
      access: { update: adminsField },
      admin: { readOnly: true, position: 'sidebar', description: 'Follows the purchase or subscription, unless staff override it.' },
    },
    {
      name: 'validUntil',
      type: 'date',
      access: { update: adminsField },
      admin: { readOnly: true, position: 'sidebar', description: 'Subscriptions: end of the paid period plus the grace period.' },
    },
    {
      name: 'override',
      label: 'Staff override',
      type: 'select',
      defaultValue: 'none',
      options: [
        { label: 'None (follow the purchase)', value: 'none' },
        { label: 'Revoked by staff', value: 'revoked' },
        { label: 'Restored by staff', value: 'active' },
      ],
      access: { update: staffField },
      admin: { position: 'sidebar' },
    },
    {
      name: 'overrideReason',
      type: 'textarea',
      maxLength: 1000,
      access: { read: staffField, update: staffField },
      admin: { position: 'sidebar', description: 'Required when the override changes; kept in the audit log. Staff only.' },
    },
    { name: 'grantedAt', type: 'date', access: { update: adminsField }, admin: { readOnly: true } },
    { name: 'revokedAt', type: 'date', access: { update: adminsField }, admin: { readOnly: true } },
    // Staff notes: a staff revocation's reason is the override's free text, and who revoked is internal.
    { name: 'revokedReason', type: 'text', access: { read: staffField, update: adminsField }, admin: { readOnly: true } },
    { name: 'revokedBy', type: 'relationship', relationTo: 'users', access: { read: staffField, update: adminsField }, admin: { readOnly: true } },
    { name: 'emailSentAt', type: 'date', access: { update: adminsField }, admin: { readOnly: true, description: 'When the license email went out.' } },
    { name: 'downloadCount', type: 'number', defaultValue: 0, access: { update: adminsField }, admin: { readOnly: true } },
    { name: 'lastDownloadedAt', type: 'date', access: { update: adminsField }, admin: { readOnly: true } },
  ],
})

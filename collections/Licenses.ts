import type { CollectionConfig, Condition } from 'payload'

import { or, ownRows } from '../src/access/compose'
import { admins, adminsField, staff, staffField } from '../src/access/roles'
import { customerJoinsForStaffOnly } from './CustomerView'
import { applyStaffOverride, recordStaffOverride } from './Licenses.hooks'
import { LICENSE_STATUSES } from '../src/licensing/status'
import { UPDATE_POLICIES } from '../src/plans/update-policies'
import { GROUPS, labelled } from './options'
import { staffActionsField } from './staff-actions'

/** The admin shows the revocation's fields only once there is one to show. */
const wasRevoked: Condition = (data) => Boolean(data?.revokedAt || data?.revokedReason || data?.revokedBy)

/**
 * Licenses: the single source of access. The webhook grants and updates them from purchases and
 * subscriptions; support revokes or restores one by setting `override` with a reason.
 */
export const createLicensesCollection = (options: { graceDays: number }): CollectionConfig => ({
  slug: 'licenses',
  labels: { singular: 'License', plural: 'Licenses' },
  admin: {
    useAsTitle: 'key',
    defaultColumns: ['key', 'email', 'user', 'plan', 'status', 'source', 'validUntil'],
    group: GROUPS.licenses,
    listSearchableFields: ['key', 'email'],
    description:
      'Revoke or restore a license, or send its email again, with the Support actions on its page (each asks for a reason).',
  },
  access: {
    read: or(staff, ownRows('user')),
    create: admins,
    update: staff,
    delete: admins,
  },
  hooks: {
    // Staff reading one license get its seats and activations; no one else runs the join queries.
    beforeOperation: [customerJoinsForStaffOnly],
    beforeChange: [applyStaffOverride(options.graceDays)],
    afterChange: [recordStaffOverride],
  },
  fields: [
    staffActionsField(['license.revoke', 'license.restore', 'license.resendEmail']),
    {
      name: 'key',
      label: 'License key',
      type: 'text',
      required: true,
      unique: true,
      access: { update: () => false },
      admin: { readOnly: true },
    },
    {
      name: 'user',
      label: 'Customer',
      type: 'relationship',
      relationTo: 'users',
      index: true,
      access: { update: adminsField },
    },
    {
      name: 'email',
      label: 'Checkout email',
      type: 'email',
      index: true,
      access: { update: adminsField },
      admin: { description: 'The address the purchase was made with: the license joins the account that confirms it.' },
    },
    { name: 'plan', type: 'relationship', relationTo: 'plans', required: true, access: { update: adminsField } },
    {
      name: 'source',
      label: 'Bought as',
      type: 'select',
      required: true,
      options: labelled(['one_time_purchase', 'subscription', 'manual'], {
        one_time_purchase: 'One-time purchase',
        subscription: 'Subscription',
        manual: 'Granted by an admin',
      }),
      access: { update: adminsField },
    },
    {
      name: 'oneTimePurchase',
      label: 'One-time purchase',
      type: 'relationship',
      relationTo: 'one_time_purchases',
      unique: true,
      access: { update: adminsField },
      admin: { condition: (data) => data?.source === 'one_time_purchase' || Boolean(data?.oneTimePurchase) },
    },
    {
      name: 'subscription',
      type: 'relationship',
      relationTo: 'user_subscriptions',
      unique: true,
      access: { update: adminsField },
      admin: { condition: (data) => data?.source === 'subscription' || Boolean(data?.subscription) },
    },
    {
      name: 'status',
      type: 'select',
      required: true,
      index: true,
      options: labelled(LICENSE_STATUSES, {
        active: 'Active',
        suspended: 'Suspended (chargeback open)',
        revoked: 'Revoked',
        expired: 'Expired',
      }),
      access: { update: adminsField },
      admin: {
        readOnly: true,
        position: 'sidebar',
        description: 'Follows the purchase or subscription, unless staff override it.',
      },
    },
    {
      name: 'validUntil',
      label: 'Valid until',
      type: 'date',
      access: { update: adminsField },
      admin: {
        readOnly: true,
        position: 'sidebar',
        description: 'Subscriptions: end of the paid period plus the grace period.',
      },
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
      label: 'Reason for the override',
      type: 'textarea',
      maxLength: 1000,
      access: { read: staffField, update: staffField },
      admin: {
        position: 'sidebar',
        description: 'Required when the override changes; kept in the audit log. Staff only.',
      },
    },
    {
      type: 'row',
      fields: [
        {
          name: 'updatePolicy',
          label: 'Updates included',
          type: 'select',
          options: labelled(UPDATE_POLICIES, {
            lifetime: 'Every release',
            major: 'Up to a major version',
            months: 'Releases published until a date',
          }),
          access: { update: adminsField },
          admin: { readOnly: true, description: 'From the plan when granted; renewals and upgrades move it.' },
        },
        {
          name: 'updatesMajor',
          label: 'Updates up to major version',
          type: 'number',
          min: 0,
          access: { update: adminsField },
          admin: {
            readOnly: true,
            condition: (data) => data?.updatePolicy === 'major',
            description: 'Releases x.y.z with x at most this.',
          },
        },
        {
          name: 'updatesUntil',
          label: 'Updates until',
          type: 'date',
          access: { update: adminsField },
          admin: {
            readOnly: true,
            condition: (data) => data?.updatePolicy === 'months',
            description: 'Releases published before this date.',
          },
        },
      ],
    },
    {
      name: 'upgradedAt',
      label: 'Upgraded',
      type: 'date',
      access: { update: adminsField },
      admin: {
        readOnly: true,
        condition: (data) => Boolean(data?.upgradedAt),
        description: 'When the customer last moved this license to a higher plan.',
      },
    },
    {
      name: 'seats',
      label: 'Seats',
      type: 'number',
      // Never empty: a license without a count would cover nobody (the seat check reads it as 0).
      required: true,
      defaultValue: 1,
      min: 1,
      access: { update: adminsField },
      admin: { readOnly: true, description: 'People this license covers, its buyer included: the quantity bought.' },
    },
    {
      name: 'teamSeats',
      label: 'Team seats',
      type: 'join',
      collection: 'license_seats',
      on: 'license',
      defaultSort: '-createdAt',
      defaultLimit: 20,
      access: { read: staffField },
      admin: {
        defaultColumns: ['email', 'status', 'member', 'claimedAt', 'revokedAt'],
        allowCreate: false,
        condition: (data) => Number(data?.seats ?? 1) > 1,
      },
    },
    {
      name: 'activations',
      label: 'Activations',
      type: 'join',
      collection: 'license_activations',
      on: 'license',
      defaultSort: '-createdAt',
      defaultLimit: 20,
      access: { read: staffField },
      admin: {
        defaultColumns: ['label', 'fingerprint', 'createdAt', 'lastValidatedAt', 'deactivatedAt'],
        allowCreate: false,
      },
    },
    { name: 'grantedAt', label: 'Granted', type: 'date', access: { update: adminsField }, admin: { readOnly: true } },
    {
      name: 'revokedAt',
      label: 'Revoked',
      type: 'date',
      access: { update: adminsField },
      admin: { readOnly: true, condition: wasRevoked },
    },
    // Staff notes: a staff revocation's reason is the override's free text, and who revoked is internal.
    {
      name: 'revokedReason',
      label: 'Why revoked',
      type: 'text',
      access: { read: staffField, update: adminsField },
      admin: { readOnly: true, condition: wasRevoked },
    },
    {
      name: 'revokedBy',
      label: 'Revoked by',
      type: 'relationship',
      relationTo: 'users',
      access: { read: staffField, update: adminsField },
      admin: { readOnly: true, condition: wasRevoked },
    },
    {
      name: 'emailSentAt',
      label: 'License email sent',
      type: 'date',
      access: { update: adminsField },
      admin: { readOnly: true, description: 'When the license email went out.' },
    },
    {
      name: 'downloadCount',
      label: 'Downloads',
      type: 'number',
      defaultValue: 0,
      access: { update: adminsField },
      admin: { readOnly: true },
    },
    {
      name: 'lastDownloadedAt',
      label: 'Last download',
      type: 'date',
      access: { update: adminsField },
      admin: { readOnly: true },
    },
  ],
})

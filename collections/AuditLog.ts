import type { CollectionConfig } from 'payload'

import { admins, staff } from '../src/access/roles'
import { GROUPS } from './options'

/** Who did what to which record, when and why: staff actions such as revoking a license. */
export const AuditLog: CollectionConfig = {
  slug: 'audit_log',
  labels: { singular: 'Audit log entry', plural: 'Audit log' },
  admin: {
    useAsTitle: 'action',
    defaultColumns: ['action', 'actor', 'reason', 'targetCollection', 'targetId', 'createdAt'],
    group: GROUPS.support,
    description:
      'Every support action and license override: who did it, to which record, when and why. Nobody can change an entry.',
  },
  access: {
    read: staff,
    create: () => false,
    update: () => false,
    delete: admins,
  },
  fields: [
    { name: 'actor', label: 'Done by', type: 'relationship', relationTo: 'users', index: true },
    {
      name: 'action',
      type: 'text',
      required: true,
      index: true,
      admin: {
        description:
          'license.revoke, license.restore, license.override_cleared (override set back to none), license.resend_email, repo_access.resend_invitation, api_key.revoke, user.schedule_deletion or user.community_sync.',
      },
    },
    {
      name: 'targetCollection',
      label: 'Record type',
      type: 'text',
      required: true,
      admin: { description: 'The collection of the record acted on, such as licenses.' },
    },
    { name: 'targetId', label: 'Record ID', type: 'text', required: true, index: true },
    { name: 'reason', label: 'Why', type: 'textarea' },
    { name: 'before', type: 'json' },
    { name: 'after', type: 'json' },
  ],
}

import type { CollectionConfig } from 'payload'

import { admins, staff } from '../src/access/roles'

/** Who did what to which record, when and why: staff actions such as revoking a license. */
export const AuditLog: CollectionConfig = {
  slug: 'audit_log',
  admin: {
    useAsTitle: 'action',
    defaultColumns: ['action', 'actor', 'targetCollection', 'targetId', 'reason', 'createdAt'],
    group: 'Licensing',
  },
  access: {
    read: staff,
    create: () => false,
    update: () => false,
    delete: admins,
  },
  fields: [
    { name: 'actor', type: 'relationship', relationTo: 'users', index: true },
    { name: 'action', type: 'text', required: true, index: true },
    { name: 'targetCollection', type: 'text', required: true },
    { name: 'targetId', type: 'text', required: true, index: true },
    { name: 'reason', type: 'textarea' },
    { name: 'before', type: 'json' },
    { name: 'after', type: 'json' },
  ],
}

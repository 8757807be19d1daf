import type { CollectionConfig } from 'payload'

import { customerRowsAccess } from '../src/access/customer-rows'
import { staffField } from '../src/access/roles'
import { staffActionsField } from './staff-actions'

/** Repository collaborator requests: one per user, the code-host username and where the invitation stands. */
export const RepoAccess: CollectionConfig = {
  slug: 'repo_access',
  admin: {
    useAsTitle: 'username',
    defaultColumns: ['username', 'user', 'status', 'invitedAt', 'acceptedAt', 'lastCheckedAt'],
    group: 'Delivery',
  },
  access: customerRowsAccess(),
  fields: [
    staffActionsField(['repoAccess.resendInvitation']),
    { name: 'user', type: 'relationship', relationTo: 'users', required: true, unique: true },
    { name: 'username', type: 'text', required: true, index: true },
    { name: 'status', type: 'select', required: true, options: ['pending', 'collaborator', 'revoked', 'failed'] },
    { name: 'invitationId', type: 'number' },
    { name: 'invitedAt', type: 'date' },
    { name: 'acceptedAt', type: 'date' },
    { name: 'lastCheckedAt', type: 'date' },
    // The code host's own error text is for staff: customers see the status.
    { name: 'lastError', type: 'text', access: { read: staffField } },
  ],
}

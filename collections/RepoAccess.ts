import type { CollectionConfig, FieldAccess } from 'payload'

import { customerRowsAccess } from '../src/access/customer-rows'
import { staffField } from '../src/access/roles'
import { GROUPS, labelled } from './options'
import { staffActionsField } from './staff-actions'

/** Only the service writes it (with overrideAccess): nobody, admins included, can claim an invitation through the API. */
const serviceOnly: FieldAccess = () => false

/** Repository collaborator requests: one per user, the code-host username and where the invitation stands. */
export const RepoAccess: CollectionConfig = {
  slug: 'repo_access',
  labels: { singular: 'Repository access', plural: 'Repository access' },
  admin: {
    useAsTitle: 'username',
    defaultColumns: ['username', 'user', 'status', 'invitedAt', 'acceptedAt', 'lastError'],
    group: GROUPS.delivery,
    description:
      'Customers on a plan with the code repository, and where their invitation stands. Open one to send the invitation again (Support actions, with a reason).',
  },
  access: customerRowsAccess(),
  fields: [
    staffActionsField(['repoAccess.resendInvitation']),
    { name: 'user', label: 'Customer', type: 'relationship', relationTo: 'users', required: true, unique: true },
    { name: 'username', label: 'Code-host username', type: 'text', required: true, index: true },
    {
      name: 'status',
      type: 'select',
      required: true,
      options: labelled(['pending', 'collaborator', 'revoked', 'failed'], {
        pending: 'Invited, not accepted yet',
        collaborator: 'Collaborator (has access)',
        revoked: 'Access removed',
        failed: 'Invitation failed',
      }),
    },
    { name: 'invitationId', type: 'number', label: 'Pending invitation id' },
    { name: 'invitedAt', label: 'Invited', type: 'date' },
    { name: 'acceptedAt', label: 'Accepted', type: 'date' },
    { name: 'lastCheckedAt', label: 'Last checked on the code host', type: 'date' },
    // The code host's own error text is for staff: customers see the status.
    { name: 'lastError', label: 'Last error', type: 'text', access: { read: staffField } },
    // The proof that the service made this access: only a username recorded here is ever taken off the
    // repository for this customer (src/delivery/repo-access.ts). Rows written before it existed have
    // none and are never removed on the code host.
    {
      name: 'serviceInvitation',
      type: 'group',
      label: 'Invitation sent by this service',
      admin: {
        description:
          'Filled only when the code host created an invitation at our request. Only this username is ever removed from the repository for this customer (a refund, a revoke, a new username). Empty: the service did not invite this username (or the request is older than this record), and it never removes it: check the repository by hand.',
      },
      access: { read: staffField, create: serviceOnly, update: serviceOnly },
      fields: [
        {
          name: 'username',
          type: 'text',
          label: 'Username invited',
          access: { read: staffField, create: serviceOnly, update: serviceOnly },
        },
        {
          name: 'invitationId',
          type: 'number',
          label: 'Invitation id on the code host',
          access: { read: staffField, create: serviceOnly, update: serviceOnly },
        },
        {
          name: 'sentAt',
          type: 'date',
          label: 'Sent at',
          access: { read: staffField, create: serviceOnly, update: serviceOnly },
        },
      ],
    },
  ],
}

import type { CollectionConfig } from 'payload'

import { nobody, staff } from '../src/access/roles'
import { SEAT_STATUSES } from '../src/teams/seat-status'
import { GROUPS, labelled } from './options'
import { staffActionsField } from './staff-actions'

/**
 * Team seats (docs/TEAMS.md): a license bought for several people holds one seat for its buyer
 * and one row here for each member the owner assigned. Written only by the service (the owner's
 * /api/licenses/:id/seats, the claim link, staff's revoke action); staff read them, customers read
 * their own through the endpoint and the dashboard.
 */
export const LicenseSeats: CollectionConfig = {
  slug: 'license_seats',
  labels: { singular: 'Team seat', plural: 'Team seats' },
  admin: {
    useAsTitle: 'email',
    defaultColumns: ['email', 'license', 'status', 'member', 'claimedAt'],
    group: GROUPS.licenses,
    listSearchableFields: ['email'],
    description:
      "People a license owner gave a seat to. A claimed seat gives its member the license's downloads, templates and repository access.",
  },
  access: { read: staff, create: nobody, update: nobody, delete: nobody },
  fields: [
    staffActionsField(['seat.revoke']),
    {
      name: 'license',
      type: 'relationship',
      relationTo: 'licenses',
      required: true,
      index: true,
      admin: { readOnly: true },
    },
    { name: 'email', label: 'Invited email', type: 'email', required: true, index: true, admin: { readOnly: true } },
    {
      name: 'status',
      type: 'select',
      required: true,
      index: true,
      defaultValue: 'pending',
      options: labelled(SEAT_STATUSES, {
        pending: 'Invited (link not used yet)',
        claimed: 'Claimed by the member',
        revoked: 'Revoked',
      }),
      admin: { readOnly: true, position: 'sidebar' },
    },
    {
      name: 'member',
      label: 'Member account',
      type: 'relationship',
      relationTo: 'users',
      index: true,
      admin: { readOnly: true, description: 'The account that claimed the seat.' },
    },
    // The claim link's token, as SHA-256 only: nobody reads it, not even staff.
    {
      name: 'claimTokenHash',
      type: 'text',
      index: true,
      access: { read: () => false, update: () => false },
      admin: { hidden: true },
    },
    {
      name: 'claimExpiresAt',
      label: 'Claim link expires',
      type: 'date',
      admin: { readOnly: true, position: 'sidebar' },
    },
    { name: 'claimedAt', label: 'Claimed', type: 'date', admin: { readOnly: true, position: 'sidebar' } },
    {
      name: 'revokedAt',
      label: 'Revoked',
      type: 'date',
      admin: { readOnly: true, position: 'sidebar', condition: (data) => Boolean(data?.revokedAt) },
    },
  ],
}

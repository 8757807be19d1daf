import type { CollectionConfig } from 'payload'

import { nobody, staff } from '../src/access/roles'
import { DEACTIVATED_BY } from '../src/licensing/activation-store'
import { GROUPS, labelled } from './options'
import { staffActionsField } from './staff-actions'

/**
 * Activations (docs/TEAMS.md): the installations a license key was activated on, each named by
 * the fingerprint its app sends. A plan's `maxActivations` caps the active ones. A deactivated row
 * stays as history (and counts against the daily deactivation limit). Written only by the service.
 */
export const LicenseActivations: CollectionConfig = {
  slug: 'license_activations',
  labels: { singular: 'Activation', plural: 'Activations' },
  admin: {
    useAsTitle: 'fingerprint',
    defaultColumns: ['label', 'fingerprint', 'license', 'createdAt', 'lastValidatedAt', 'deactivatedAt'],
    group: GROUPS.licenses,
    listSearchableFields: ['fingerprint', 'label'],
    description:
      "Where a license key runs. Remove one with the Support action to free its place under the plan's limit.",
  },
  access: { read: staff, create: nobody, update: nobody, delete: nobody },
  fields: [
    staffActionsField(['activation.remove']),
    {
      name: 'license',
      type: 'relationship',
      relationTo: 'licenses',
      required: true,
      index: true,
      admin: { readOnly: true },
    },
    {
      name: 'fingerprint',
      type: 'text',
      required: true,
      index: true,
      maxLength: 200,
      admin: { readOnly: true, description: 'What the app sent to name its installation (a machine or project ID).' },
    },
    {
      name: 'label',
      type: 'text',
      maxLength: 100,
      admin: { readOnly: true, description: 'The name the app gave, such as a host name.' },
    },
    { name: 'lastValidatedAt', label: 'Last validated', type: 'date', admin: { readOnly: true, position: 'sidebar' } },
    {
      name: 'deactivatedAt',
      label: 'Deactivated',
      type: 'date',
      index: true,
      admin: { readOnly: true, position: 'sidebar' },
    },
    {
      name: 'deactivatedBy',
      label: 'Deactivated by',
      type: 'select',
      options: labelled(DEACTIVATED_BY, {
        key: 'The app, with the license key',
        owner: 'The owner, in the dashboard',
        staff: 'Support',
      }),
      admin: { readOnly: true, position: 'sidebar', condition: (data) => Boolean(data?.deactivatedAt) },
    },
  ],
}

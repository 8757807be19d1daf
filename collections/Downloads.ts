import type { CollectionConfig } from 'payload'

import { customerRowsAccess } from '../src/access/customer-rows'
import { GROUPS } from './options'

/** Download history: one row per successful /api/download request. */
export const Downloads: CollectionConfig = {
  slug: 'downloads',
  labels: { singular: 'Release download', plural: 'Release downloads' },
  admin: {
    useAsTitle: 'version',
    defaultColumns: ['version', 'user', 'license', 'createdAt', 'clientAddress'],
    group: GROUPS.delivery,
    description: 'Every release a customer downloaded, newest first.',
  },
  access: customerRowsAccess(),
  fields: [
    { name: 'user', label: 'Customer', type: 'relationship', relationTo: 'users', required: true, index: true },
    { name: 'license', type: 'relationship', relationTo: 'licenses', required: true, index: true },
    { name: 'release', type: 'relationship', relationTo: 'releases', required: true, index: true },
    { name: 'version', type: 'text', required: true },
    {
      name: 'clientAddress',
      label: 'IP address',
      type: 'text',
      admin: { description: 'Truncated: IPv4 /24, IPv6 /48.' },
    },
    { name: 'userAgent', label: 'Browser or tool', type: 'text', maxLength: 256 },
  ],
}

import type { CollectionConfig } from 'payload'

import { customerRowsAccess } from '../src/access/customer-rows'

/** Download history: one row per successful /api/download request. */
export const Downloads: CollectionConfig = {
  slug: 'downloads',
  admin: {
    useAsTitle: 'version',
    defaultColumns: ['version', 'user', 'license', 'clientAddress', 'createdAt'],
    group: 'Delivery',
  },
  access: customerRowsAccess(),
  fields: [
    { name: 'user', type: 'relationship', relationTo: 'users', required: true, index: true },
    { name: 'license', type: 'relationship', relationTo: 'licenses', required: true, index: true },
    { name: 'release', type: 'relationship', relationTo: 'releases', required: true, index: true },
    { name: 'version', type: 'text', required: true },
    { name: 'clientAddress', type: 'text', admin: { description: 'Truncated: IPv4 /24, IPv6 /48.' } },
    { name: 'userAgent', type: 'text', maxLength: 256 },
  ],
}

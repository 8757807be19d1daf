import type { CollectionConfig } from 'payload'

import { customerRowsAccess } from '../src/access/customer-rows'

/** Template download history: one row per link /api/templates/:id/download hands out. */
export const TemplateDownloads: CollectionConfig = {
  slug: 'template_downloads',
  graphQL: { singularName: 'TemplateDownload', pluralName: 'TemplateDownloads' },
  admin: {
    defaultColumns: ['template', 'user', 'license', 'clientAddress', 'createdAt'],
    group: 'Delivery',
  },
  defaultSort: '-createdAt',
  access: customerRowsAccess(),
  fields: [
    { name: 'user', type: 'relationship', relationTo: 'users', required: true, index: true },
    { name: 'template', type: 'relationship', relationTo: 'templates', required: true, index: true },
    { name: 'license', type: 'relationship', relationTo: 'licenses', index: true, admin: { description: 'The license whose plan grants the template library.' } },
    { name: 'clientAddress', type: 'text', admin: { description: 'Truncated: IPv4 /24, IPv6 /48.' } },
    { name: 'userAgent', type: 'text', maxLength: 256 },
  ],
}

import type { CollectionConfig } from 'payload'

import { customerRowsAccess } from '../src/access/customer-rows'
import { GROUPS } from './options'

/** Template download history: one row per link /api/templates/:id/download hands out. */
export const TemplateDownloads: CollectionConfig = {
  slug: 'template_downloads',
  graphQL: { singularName: 'TemplateDownload', pluralName: 'TemplateDownloads' },
  labels: { singular: 'Template download', plural: 'Template downloads' },
  admin: {
    defaultColumns: ['template', 'user', 'license', 'createdAt', 'clientAddress'],
    group: GROUPS.delivery,
    description: 'Every template a customer downloaded, newest first.',
  },
  defaultSort: '-createdAt',
  access: customerRowsAccess(),
  fields: [
    { name: 'user', label: 'Customer', type: 'relationship', relationTo: 'users', required: true, index: true },
    { name: 'template', type: 'relationship', relationTo: 'templates', required: true, index: true },
    {
      name: 'license',
      type: 'relationship',
      relationTo: 'licenses',
      index: true,
      admin: { description: 'The license whose plan grants the template library.' },
    },
    {
      name: 'clientAddress',
      label: 'IP address',
      type: 'text',
      admin: { description: 'Truncated: IPv4 /24, IPv6 /48.' },
    },
    { name: 'userAgent', label: 'Browser or tool', type: 'text', maxLength: 256 },
  ],
}

import type { Access, CollectionConfig, Endpoint, Field } from 'payload'

import { admins, isStaffUser, staffField } from '../src/access/roles'
import { slugField } from './content/shared'
import { GROUPS, labelled } from './options'

const TEMPLATE_CATEGORIES = ['dashboard', 'marketing', 'auth', 'billing', 'email'] as const

/**
 * Anyone sees the published catalogue; staff see everything. The archive itself is never served
 * by Payload's file route to anyone but staff: holders get it through /api/templates/:id/download.
 */
const catalogueOrStaff: Access = ({ req, isReadingStaticFile }) => {
  if (isStaffUser(req.user)) return true
  if (isReadingStaticFile) return false
  return { publishedAt: { less_than_equal: new Date().toISOString() } }
}

/**
 * The fields that name or locate the archive: Payload's upload fields and the S3 plugin's. Staff
 * read them; for everyone else they are absent from REST and GraphQL and cannot be queried.
 */
const ARCHIVE_FIELDS: Record<string, 'text' | 'number'> = {
  filename: 'text',
  mimeType: 'text',
  filesize: 'number',
  url: 'text',
  thumbnailURL: 'text',
  width: 'number',
  height: 'number',
  prefix: 'text',
  _objectKey: 'text',
}

/**
 * Make the archive's fields staff-only. Runs after the storage plugin (which adds `prefix` and
 * `_objectKey`); the upload fields Payload adds later are declared here and merged with its own.
 */
export const withStaffOnlyArchive = (collection: CollectionConfig): CollectionConfig => {
  const present = new Set<string>()
  const fields = collection.fields.map((field): Field => {
    if (!('name' in field) || !(field.name in ARCHIVE_FIELDS)) return field
    present.add(field.name)
    return { ...field, access: { ...('access' in field ? field.access : {}), read: staffField } } as Field
  })
  for (const [name, type] of Object.entries(ARCHIVE_FIELDS)) {
    if (!present.has(name))
      fields.push({ name, type, access: { read: staffField }, admin: { hidden: true, readOnly: true } } as Field)
  }
  return { ...collection, fields }
}

/**
 * The template library (feature key `templates`): starter templates staff upload as archives,
 * stored like releases (S3 when configured, otherwise local disk outside any public folder).
 */
export const createTemplatesCollection = (options: { staticDir: string; endpoints: Endpoint[] }): CollectionConfig => ({
  slug: 'templates',
  labels: { singular: 'Template', plural: 'Templates' },
  admin: {
    useAsTitle: 'name',
    defaultColumns: ['name', 'category', 'slug', 'publishedAt', 'downloadCount'],
    group: GROUPS.delivery,
    description:
      'Template archives for customers whose plan includes the template library. Visible in the catalogue once the publish date has passed.',
  },
  defaultSort: '-publishedAt',
  access: { read: catalogueOrStaff, create: admins, update: admins, delete: admins },
  endpoints: options.endpoints,
  upload: {
    staticDir: options.staticDir,
    mimeTypes: [
      'application/zip',
      'application/x-zip-compressed',
      'application/gzip',
      'application/x-gzip',
      'application/x-tar',
      'application/octet-stream',
    ],
    filesRequiredOnCreate: true,
    focalPoint: false,
    crop: false,
    displayPreview: false,
  },
  fields: [
    { name: 'name', type: 'text', required: true, maxLength: 120 },
    slugField({ useAsSlug: 'name' }),
    { name: 'description', type: 'textarea', maxLength: 2000 },
    {
      name: 'category',
      type: 'select',
      required: true,
      options: labelled(TEMPLATE_CATEGORIES, {
        dashboard: 'Dashboard',
        marketing: 'Marketing',
        auth: 'Sign-in and accounts',
        billing: 'Billing',
        email: 'Email',
      }),
      index: true,
    },
    {
      name: 'preview',
      label: 'Preview image',
      type: 'upload',
      relationTo: 'media',
      admin: { description: 'A screenshot for the catalogue (public).' },
    },
    {
      name: 'publishedAt',
      label: 'Published',
      type: 'date',
      index: true,
      admin: {
        position: 'sidebar',
        date: { pickerAppearance: 'dayAndTime' },
        description: 'Empty or in the future: not in the catalogue.',
      },
    },
    {
      name: 'downloadCount',
      label: 'Downloads',
      type: 'number',
      defaultValue: 0,
      access: { read: staffField, create: () => false, update: () => false },
      admin: { readOnly: true, position: 'sidebar' },
    },
  ],
})

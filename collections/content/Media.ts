import type { CollectionConfig } from 'payload'

import { admins, staffField } from '../../src/access/roles'
import { mediaReadAccess } from '../../src/content/public-media'
import { GROUPS } from '../options'

/**
 * Images of the public site (blog covers, pictures in posts). A visitor reads an image only through
 * the published content that shows it (src/content/public-media.ts): one that only a draft or a
 * premium post's body uses stays hidden from those who cannot read that content. SVG is refused
 * because a served SVG can carry script on the site's own origin.
 */
export const createMediaCollection = (options: { staticDir: string }): CollectionConfig => ({
  slug: 'media',
  labels: { singular: 'Image', plural: 'Media' },
  admin: {
    group: GROUPS.content,
    useAsTitle: 'alt',
    defaultColumns: ['filename', 'alt', 'width', 'height', 'updatedAt'],
    description: 'Images of the public site: blog covers, pictures in posts, template previews.',
  },
  access: { read: mediaReadAccess, create: admins, update: admins, delete: admins },
  upload: {
    staticDir: options.staticDir,
    mimeTypes: ['image/png', 'image/jpeg', 'image/webp', 'image/avif', 'image/gif'],
    adminThumbnail: 'thumbnail',
    focalPoint: true,
    imageSizes: [
      { name: 'thumbnail', width: 480, height: 252, position: 'centre' },
      { name: 'card', width: 800, height: 420, position: 'centre' },
      { name: 'og', width: 1200, height: 630, position: 'centre' },
    ],
  },
  fields: [
    {
      name: 'alt',
      label: 'Description (alt text)',
      type: 'text',
      required: true,
      maxLength: 200,
      admin: { description: 'What the image shows, for readers who cannot see it.' },
    },
    {
      // The importer's key: the SHA-256 of an imported file, so importing it again reuses this image.
      name: 'sourceHash',
      type: 'text',
      index: true,
      access: { read: staffField, create: staffField, update: staffField },
      admin: { hidden: true },
    },
  ],
})

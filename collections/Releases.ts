import type { CollectionBeforeValidateHook, CollectionConfig } from 'payload'
import { ValidationError } from 'payload'
import semver from 'semver'

import { admins, staff } from '../src/access/roles'
import type { Release } from '../src/payload-types'
import { GROUPS } from './options'

const checkVersion: CollectionBeforeValidateHook<Release> = ({ data, req }) => {
  const version = typeof data?.version === 'string' ? data.version.trim() : data?.version
  if (version !== undefined && (typeof version !== 'string' || semver.valid(version) !== version)) {
    throw new ValidationError(
      {
        collection: 'releases',
        errors: [{ path: 'version', message: 'Use a semantic version such as 1.4.2 or 2.0.0-beta.1.' }],
      },
      req.t,
    )
  }
  return data ? { ...data, ...(version ? { version, prerelease: semver.prerelease(version) !== null } : {}) } : data
}

/**
 * The kit's releases: a version, notes and the archive. Staff only: customers get a release through
 * /api/download's short-lived signed links, never by listing or fetching these files.
 */
export const createReleasesCollection = (options: { staticDir: string }): CollectionConfig => ({
  slug: 'releases',
  labels: { singular: 'Release', plural: 'Releases' },
  admin: {
    useAsTitle: 'version',
    defaultColumns: ['version', 'publishedAt', 'prerelease', 'filename', 'downloadCount'],
    group: GROUPS.delivery,
    description:
      'Upload the kit archive of each version. Customers see a release once it has a publish date in the past.',
  },
  defaultSort: '-createdAt',
  access: { read: staff, create: admins, update: admins, delete: admins },
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
  },
  hooks: { beforeValidate: [checkVersion] },
  fields: [
    {
      name: 'version',
      type: 'text',
      required: true,
      unique: true,
      index: true,
      admin: { description: 'A semantic version, such as 1.4.2 or 2.0.0-beta.1.' },
    },
    {
      name: 'prerelease',
      label: 'Pre-release',
      type: 'checkbox',
      defaultValue: false,
      admin: { readOnly: true, position: 'sidebar', description: 'From the version (1.0.0-beta.1).' },
    },
    {
      name: 'publishedAt',
      label: 'Published',
      type: 'date',
      index: true,
      admin: {
        position: 'sidebar',
        date: { pickerAppearance: 'dayAndTime' },
        description: 'Empty or in the future: not visible to customers.',
      },
    },
    { name: 'notes', label: 'Release notes', type: 'richText' },
    {
      name: 'downloadCount',
      label: 'Downloads',
      type: 'number',
      defaultValue: 0,
      access: { update: () => false },
      admin: { readOnly: true, position: 'sidebar' },
    },
  ],
})

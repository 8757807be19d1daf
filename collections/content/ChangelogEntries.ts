import type { CollectionAfterChangeHook, CollectionBeforeChangeHook, CollectionConfig } from 'payload'
import { ValidationError } from 'payload'
import semver from 'semver'

import { staffField } from '../../src/access/roles'
import { CONTENT_TAGS } from '../../src/content/cache-tags'
import { contentEditor } from '../../src/content/editor'
import type { ChangelogEntry, Release } from '../../src/payload-types'
import { labelled } from '../options'
import {
  CONTENT_SYSTEM_CONTEXT,
  contentCollection,
  type PreviewUrl,
  publishedAtField,
  slugField,
  sourceField,
  summaryField,
  toSlug,
} from './shared'

export const CHANGE_TYPES = ['added', 'changed', 'fixed', 'security'] as const

/** The default slug of a version's entry: v1.2.0 -> v1-2-0 (also the anchor on /changelog). */
export const changelogSlug = (version: string): string => `v${version.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`

/** The admin's "Generate" makes a slug from the version, as an entry without one gets. */
const slugFromVersion = (text: string): string =>
  semver.valid(text.trim()) ? changelogSlug(text.trim()) : toSlug(text)

/** Validate the version and join the entry to the release of that version, when there is one. */
const joinRelease: CollectionBeforeChangeHook<ChangelogEntry> = async ({ data, originalDoc, req }) => {
  const given = data.version ?? originalDoc?.version
  const version = typeof given === 'string' ? given.trim() : given
  if (typeof version !== 'string' || semver.valid(version) !== version) {
    throw new ValidationError(
      {
        collection: 'changelog_entries',
        errors: [{ path: 'version', message: 'Use a semantic version such as 1.4.2.' }],
      },
      req.t,
    )
  }
  const { docs } = await req.payload.find({
    collection: 'releases',
    where: { version: { equals: version } },
    limit: 1,
    depth: 0,
    select: {},
    req,
    overrideAccess: true,
  })
  return {
    ...data,
    version,
    slug: data.slug || originalDoc?.slug || changelogSlug(version),
    release: docs[0]?.id ?? null,
  }
}

/**
 * Releases side of the join: a release uploaded after its changelog entry links to it. Added to the
 * releases collection by the content plugin.
 */
export const linkChangelogToRelease: CollectionAfterChangeHook<Release> = async ({
  doc,
  operation,
  previousDoc,
  req,
}) => {
  if (operation === 'update' && previousDoc?.version === doc.version) return doc
  await req.payload.update({
    collection: 'changelog_entries',
    where: { version: { equals: doc.version }, release: { exists: false } },
    data: { release: doc.id },
    req,
    overrideAccess: true,
    context: { ...req.context, [CONTENT_SYSTEM_CONTEXT]: true },
  })
  return doc
}

/** The kit's changelog: one entry per version, with the kinds of change it brings. */
export const createChangelogCollection = (options: { previewUrl: PreviewUrl }): CollectionConfig => ({
  ...contentCollection({
    slug: 'changelog_entries',
    tag: CONTENT_TAGS.changelog,
    previewUrl: options.previewUrl,
    admin: {
      defaultColumns: ['version', 'title', '_status', 'publishedAt', 'release'],
      listSearchableFields: ['title', 'version', 'summary'],
    },
    beforeChange: [joinRelease],
  }),
  labels: { singular: 'Changelog entry', plural: 'Changelog' },
  fields: [
    { name: 'title', type: 'text', required: true, maxLength: 120 },
    {
      name: 'version',
      type: 'text',
      required: true,
      unique: true,
      index: true,
      admin: { description: 'The kit version this entry describes, such as 1.4.0.' },
    },
    summaryField,
    { name: 'body', type: 'richText', editor: contentEditor },
    slugField({ useAsSlug: 'version', slugify: slugFromVersion }),
    publishedAtField,
    {
      name: 'changeTypes',
      label: 'Kinds of change',
      type: 'select',
      hasMany: true,
      options: labelled(CHANGE_TYPES, { added: 'Added', changed: 'Changed', fixed: 'Fixed', security: 'Security' }),
      admin: { position: 'sidebar' },
    },
    {
      name: 'release',
      type: 'relationship',
      relationTo: 'releases',
      access: { read: staffField },
      admin: { position: 'sidebar', readOnly: true, description: 'The release of this version, linked automatically.' },
    },
    sourceField,
  ],
})

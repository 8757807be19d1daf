import { slugField as payloadSlugField } from 'payload'
import type {
  Access,
  CollectionAfterChangeHook,
  CollectionBeforeChangeHook as BeforeChange,
  CollectionConfig,
  CollectionAfterDeleteHook,
  CollectionBeforeChangeHook,
  Field,
  TextFieldSingleValidation,
} from 'payload'

import { admins, isStaffUser, staff, staffField } from '../../src/access/roles'
import { revalidateContent } from '../../src/content/revalidate'
import type { ContentTag } from '../../src/content/cache-tags'
import type { ChangelogEntry, Post } from '../../src/payload-types'
import { GROUPS } from '../options'
import { toSlug as slugWords } from '../../src/content/render/slug'

/** Set on `req.context` by the MDX importer: its writes are not "edits in the admin". */
export const CONTENT_IMPORT_CONTEXT = 'contentImport'
/** Set by the service's own bookkeeping writes (linking a release): not edits either. */
export const CONTENT_SYSTEM_CONTEXT = 'contentSystemChange'

export const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/

/** Anyone reads published entries; drafts and the versions history are for staff. */
const publishedOrStaff: Access = ({ req }) => isStaffUser(req.user) || { _status: { equals: 'published' } }

const SLUG_MAX = 96
/** Any text as a slug: ASCII letters and digits, lowercased, runs of anything else as one dash, at most 96 characters. */
export const toSlug = (text: string): string => slugWords(text, SLUG_MAX)

type PayloadSlugify = NonNullable<NonNullable<Parameters<typeof payloadSlugField>[0]>['slugify']>

/**
 * A lowercase, dash-separated slug, unique in its collection and clear of the routes beside it: Payload's
 * slug field, so the admin generates it from `useAsSlug` (the title) until someone unlocks it and types one.
 * A slug given explicitly (typed, imported, set by a hook) is kept as given and must pass the rules.
 */
export const slugField = (
  options: { useAsSlug?: string; reserved?: readonly string[]; slugify?: (text: string) => string } = {},
): Field => {
  const { useAsSlug = 'title', reserved = [], slugify = toSlug } = options
  const validate: TextFieldSingleValidation = (value) => {
    if (typeof value !== 'string' || !SLUG_PATTERN.test(value))
      return 'Use lowercase letters, digits and single dashes, such as my-first-post.'
    if (value.length > SLUG_MAX) return `Keep the slug to ${SLUG_MAX} characters or fewer.`
    if (reserved.includes(value)) return `"${value}" is taken by a page of the site; choose another slug.`
    return true
  }
  const generate: PayloadSlugify = ({ data, valueToSlugify }) => {
    if (typeof valueToSlugify !== 'string' || valueToSlugify.trim() === '') return undefined
    return valueToSlugify === (data as Record<string, unknown> | undefined)?.slug
      ? valueToSlugify
      : slugify(valueToSlugify) || undefined
  }
  return payloadSlugField({
    useAsSlug,
    slugify: generate,
    overrides: (row) => ({
      ...row,
      fields: row.fields.map((field): Field => {
        if (!('name' in field)) return field
        if (field.name === 'slug') {
          return {
            ...field,
            validate,
            admin: {
              ...field.admin,
              description:
                'The address of the entry, generated until you unlock it and type one. Changing it breaks links people already have.',
            },
          } as Field
        }
        return { ...field, label: 'Generate the slug' }
      }),
    }),
  })
}

/**
 * Where an imported entry came from. Only the importer writes it (see markEdits); staff read it
 * to see which file owns an entry and whether someone edited it in the admin since.
 */
export const sourceField: Field = {
  name: 'source',
  type: 'group',
  access: { read: staffField },
  admin: {
    position: 'sidebar',
    readOnly: true,
    condition: (data: Partial<ContentDoc>) => Boolean(data.source?.path),
    description:
      'Imported from this MDX file. Once edited here, later changes of the file are reported as conflicts and not applied.',
  },
  fields: [
    { name: 'path', type: 'text' },
    { name: 'contentHash', type: 'text' },
    { name: 'importedAt', type: 'date' },
    { name: 'editedAfterImport', type: 'checkbox', defaultValue: false },
  ],
}

type ContentDoc = Post | ChangelogEntry

/**
 * Keep `source` the importer's: a save from anywhere else (the admin, REST, GraphQL) cannot set it,
 * and a save of an imported entry marks it as edited, so the importer never overwrites that work.
 * Publishing a date-less entry stamps `publishedAt`.
 */
const guardContentChange: CollectionBeforeChangeHook<ContentDoc> = ({ data, originalDoc, req }) => {
  const next = { ...data }
  if (!req.context[CONTENT_IMPORT_CONTEXT] && !req.context[CONTENT_SYSTEM_CONTEXT]) {
    const previous = originalDoc?.source ?? {}
    next.source = previous.path
      ? { ...previous, editedAfterImport: true }
      : { path: null, contentHash: null, importedAt: null, editedAfterImport: false }
  }
  if (next._status === 'published' && !next.publishedAt) next.publishedAt = new Date().toISOString()
  return next
}

/** Published content changed (or stopped being published): refresh the pages that show it. */
const revalidateOnChange =
  (tag: ContentTag): CollectionAfterChangeHook<ContentDoc> =>
  ({ doc, previousDoc, req }) => {
    if (doc?._status === 'published' || previousDoc?._status === 'published') revalidateContent(req.payload, tag)
    return doc
  }

const revalidateOnDelete =
  (tag: ContentTag): CollectionAfterDeleteHook<ContentDoc> =>
  ({ doc, req }) => {
    if (doc?._status === 'published') revalidateContent(req.payload, tag)
    return doc
  }

export const summaryField: Field = {
  name: 'summary',
  type: 'textarea',
  required: true,
  maxLength: 300,
  admin: { description: 'One or two sentences: shown in lists, feeds and search results.' },
}

export const publishedAtField: Field = {
  name: 'publishedAt',
  type: 'date',
  index: true,
  admin: {
    position: 'sidebar',
    date: { pickerAppearance: 'dayOnly' },
    description: 'The date readers see. Set on first publish when empty.',
  },
}

export type ContentSlug = 'posts' | 'changelog_entries'
export type PreviewUrl = (collection: ContentSlug, slug: string) => string

/**
 * What posts and changelog entries share: the admin's preview and live preview of an entry's page,
 * access (published to anyone, drafts and versions to staff, writes to admins), drafts with
 * autosave, the source guard and the revalidation of the pages that show them.
 */
export const contentCollection = (options: {
  slug: ContentSlug
  tag: ContentTag
  previewUrl: PreviewUrl
  admin: Pick<NonNullable<CollectionConfig['admin']>, 'defaultColumns' | 'listSearchableFields'>
  beforeChange?: BeforeChange[]
}): Pick<CollectionConfig, 'slug' | 'admin' | 'defaultSort' | 'access' | 'versions' | 'hooks'> => ({
  slug: options.slug,
  admin: {
    group: GROUPS.content,
    useAsTitle: 'title',
    ...options.admin,
    preview: (doc) => (typeof doc?.slug === 'string' ? options.previewUrl(options.slug, doc.slug) : null),
    livePreview: {
      url: ({ data }) => (typeof data?.slug === 'string' ? options.previewUrl(options.slug, data.slug) : ''),
    },
  },
  defaultSort: '-publishedAt',
  access: { read: publishedOrStaff, readVersions: staff, create: admins, update: admins, delete: admins },
  versions: { drafts: { autosave: { interval: 1500 } }, maxPerDoc: 50 },
  hooks: {
    beforeChange: [guardContentChange, ...(options.beforeChange ?? [])],
    afterChange: [revalidateOnChange(options.tag)],
    afterDelete: [revalidateOnDelete(options.tag)],
  },
})

import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'

import { convertMarkdownToLexical, editorConfigFactory } from '@payloadcms/richtext-lexical'
import type { Payload, PayloadRequest, RichTextField, Where } from 'payload'

import { changelogSlug } from '../../../collections/content/ChangelogEntries'
import { CONTENT_IMPORT_CONTEXT } from '../../../collections/content/shared'
import { inTransaction } from '../../db/transaction'
import {
  ContentSourceError,
  IMAGE,
  type ImageRef,
  parseSource,
  type ParsedSource,
  type ChangelogFrontmatter,
  type PostFrontmatter,
  type SourceProblem,
} from './parse'

export { ContentSourceError } from './parse'

/** Bump when the conversion itself changes, so every file is imported again once. */
const IMPORT_FORMAT = '1'

type ContentCollection = 'posts' | 'changelog_entries'
const FOLDERS: Record<ContentCollection, string> = { posts: 'blog', changelog_entries: 'changelog' }

type ImportAction = 'create' | 'update' | 'unchanged' | 'conflict'
type ImportItem = { collection: ContentCollection; slug: string; file: string; action: ImportAction; reason?: string }
export type ImportReport = { items: ImportItem[]; applied: boolean }

type Source =
  | { collection: 'posts'; parsed: ParsedSource<PostFrontmatter>; slug: string; hash: string }
  | { collection: 'changelog_entries'; parsed: ParsedSource<ChangelogFrontmatter>; slug: string; hash: string }

type ExistingEntry = {
  id: number
  slug: string
  source?: { path?: string | null; contentHash?: string | null; editedAfterImport?: boolean | null } | null
}

const sha256 = (data: Buffer | string) => crypto.createHash('sha256').update(data).digest('hex')

/** Read and check every source under `root` (src/content); throw every problem at once. */
const readSources = (root: string, displayRoot: string): Source[] => {
  const problems: SourceProblem[] = []
  const sources: Source[] = []
  for (const collection of Object.keys(FOLDERS) as ContentCollection[]) {
    const folder = path.join(root, FOLDERS[collection])
    const names = fs.existsSync(folder)
      ? fs
          .readdirSync(folder)
          .filter((name) => name.endsWith('.mdx'))
          .sort()
      : []
    const seen = new Map<string, string>()
    for (const name of names) {
      const absoluteFile = path.join(folder, name)
      const file = path.relative(displayRoot, absoluteFile)
      const text = fs.readFileSync(absoluteFile, 'utf8')
      const parsed = parseSource(collection, file, absoluteFile, text, problems, (candidate) =>
        fs.existsSync(candidate),
      )
      if (!parsed) continue
      const slug =
        parsed.frontmatter.slug ??
        (collection === 'posts'
          ? path.basename(name, '.mdx')
          : changelogSlug((parsed.frontmatter as ChangelogFrontmatter).version))
      const claims = [
        `slug ${slug}`,
        ...(collection === 'changelog_entries'
          ? [`version ${(parsed.frontmatter as ChangelogFrontmatter).version}`]
          : []),
      ]
      for (const claim of claims) {
        const other = seen.get(claim)
        if (other) problems.push({ file, line: 1, reason: `${claim} is also used by ${other}` })
        seen.set(claim, file)
      }
      const images = [...parsed.images, ...(parsed.cover ? [parsed.cover] : [])]
        .map((image) => `${path.relative(folder, image.absolutePath)}:${sha256(fs.readFileSync(image.absolutePath))}`)
        .sort()
      const hash = sha256([IMPORT_FORMAT, text, ...images].join('\0'))
      sources.push({ collection, parsed, slug, hash } as Source)
    }
  }
  if (problems.length > 0) throw new ContentSourceError(problems)
  return sources
}

/** The upload of an image file, reused when the same bytes were imported before. */
const mediaFor = async (req: PayloadRequest, image: ImageRef): Promise<number> => {
  const sourceHash = sha256(fs.readFileSync(image.absolutePath))
  const { docs } = await req.payload.find({
    collection: 'media',
    where: { sourceHash: { equals: sourceHash } },
    limit: 1,
    depth: 0,
    req,
    overrideAccess: true,
  })
  if (docs[0]) return docs[0].id
  const created = await req.payload.create({
    collection: 'media',
    data: { alt: image.alt, sourceHash },
    filePath: image.absolutePath,
    req,
    overrideAccess: true,
  })
  return created.id
}

/** Markdown to the editor's Lexical JSON, with the collection's own editor config and converters. */
const toLexical = async (req: PayloadRequest, collection: ContentCollection, source: ParsedSource<unknown>) => {
  const ids = new Map<string, number>()
  for (const image of source.images) ids.set(image.absolutePath, await mediaFor(req, image))
  // The editor's upload transformer reads ![relationTo:id]().
  const markdown = source.body.replace(IMAGE, (whole, _alt: string, target: string) => {
    const id = ids.get(path.resolve(path.dirname(source.absoluteFile), target))
    return id === undefined ? whole : `![media:${id}]()`
  })
  const field = req.payload.collections[collection].config.flattenedFields.find(
    (candidate) => candidate.name === 'body',
  ) as RichTextField
  return convertMarkdownToLexical({ editorConfig: editorConfigFactory.fromField({ field }), markdown })
}

const dataFor = async (req: PayloadRequest, source: Source, file: string, now: Date) => {
  const { parsed } = source
  const cover = parsed.cover ? await mediaFor(req, parsed.cover) : null
  const common = {
    title: parsed.frontmatter.title,
    slug: source.slug,
    summary: parsed.frontmatter.summary,
    body: await toLexical(req, source.collection, parsed),
    publishedAt: new Date(`${parsed.frontmatter.date}T00:00:00.000Z`).toISOString(),
    _status: parsed.frontmatter.draft ? ('draft' as const) : ('published' as const),
    meta: { title: parsed.frontmatter.title, description: parsed.frontmatter.summary, image: cover },
    source: { path: file, contentHash: source.hash, importedAt: now.toISOString(), editedAfterImport: false },
  }
  if (source.collection === 'posts') {
    const { author, tags, requiredFeature } = source.parsed.frontmatter
    return { ...common, author, tags: tags ?? [], cover, requiredFeature: requiredFeature ?? null }
  }
  const { version, changes } = source.parsed.frontmatter
  return { ...common, version, changeTypes: changes ?? [] }
}

/** What to do with one source, given the entry that holds its slug (or version) today. */
const decide = (source: Source, existing: ExistingEntry | undefined): Pick<ImportItem, 'action' | 'reason'> => {
  if (!existing) return { action: 'create' }
  const origin = existing.source
  if (!origin?.path)
    return {
      action: 'conflict',
      reason: `an entry with this ${existing.slug === source.slug ? 'slug' : 'version'} was created in the admin; the file is not imported`,
    }
  if (origin.path !== source.parsed.file)
    return { action: 'conflict', reason: `the entry was imported from ${origin.path}` }
  if (origin.contentHash === source.hash) return { action: 'unchanged' }
  if (origin.editedAfterImport)
    return {
      action: 'conflict',
      reason: 'the entry was edited in the admin after it was imported; the change of the file is not applied',
    }
  return { action: 'update' }
}

const findExisting = async (req: PayloadRequest, source: Source): Promise<ExistingEntry | undefined> => {
  const where: Where =
    source.collection === 'changelog_entries'
      ? { or: [{ slug: { equals: source.slug } }, { version: { equals: source.parsed.frontmatter.version } }] }
      : { slug: { equals: source.slug } }
  // The newest version, draft or published: an edit saved as a draft counts as an edit too.
  const { docs } = await req.payload.find({
    collection: source.collection,
    where,
    draft: true,
    limit: 1,
    depth: 0,
    req,
    overrideAccess: true,
  })
  return docs[0]
}

/**
 * Import the MDX sources under `root` into posts and changelog entries, idempotently by slug and
 * content hash, in one transaction: new files are created, changed files update the entries they
 * created, and entries created or edited in the admin are left alone and reported as conflicts.
 * With `check`, nothing is written: the report says what an import would do. Invalid sources throw
 * a ContentSourceError listing every problem (file, line, reason) before anything is written.
 */
export const importContent = async (
  payload: Payload,
  options: { root: string; displayRoot?: string; check?: boolean; now?: Date },
): Promise<ImportReport> => {
  const sources = readSources(options.root, options.displayRoot ?? process.cwd())
  const now = options.now ?? new Date()
  return inTransaction(payload, async (req) => {
    req.context[CONTENT_IMPORT_CONTEXT] = true
    const items: ImportItem[] = []
    for (const source of sources) {
      const existing = await findExisting(req, source)
      const decision = decide(source, existing)
      items.push({ collection: source.collection, slug: source.slug, file: source.parsed.file, ...decision })
      if (options.check || (decision.action !== 'create' && decision.action !== 'update')) continue
      const data = await dataFor(req, source, source.parsed.file, now)
      const context = { [CONTENT_IMPORT_CONTEXT]: true }
      if (decision.action === 'create')
        await req.payload.create({
          collection: source.collection,
          data: data as never,
          req,
          overrideAccess: true,
          context,
        })
      else
        await req.payload.update({
          collection: source.collection,
          id: existing!.id,
          data: data,
          req,
          overrideAccess: true,
          context,
        })
    }
    return { items, applied: !options.check }
  })
}

/** One line per entry that is not unchanged, for logs and the command line. */
export const describeImport = (report: ImportReport): string[] => {
  const verb: Record<ImportAction, string> = report.applied
    ? { create: 'created', update: 'updated', unchanged: 'unchanged', conflict: 'conflict' }
    : { create: 'would create', update: 'would update', unchanged: 'unchanged', conflict: 'conflict' }
  const changed = report.items.filter((item) => item.action !== 'unchanged')
  const unchanged = report.items.length - changed.length
  return [
    ...changed.map(
      (item) =>
        `${verb[item.action]}: ${item.collection}/${item.slug} (${item.file})${item.reason ? `: ${item.reason}` : ''}`,
    ),
    `${report.items.length} sources: ${unchanged} unchanged, ${changed.filter((i) => i.action === 'create').length} new, ${changed.filter((i) => i.action === 'update').length} changed, ${changed.filter((i) => i.action === 'conflict').length} conflicts`,
  ]
}

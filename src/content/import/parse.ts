import path from 'node:path'

import semver from 'semver'
import { LineCounter, parseDocument, isMap, isScalar, isPair } from 'yaml'
import { z } from 'zod'

import { CHANGE_TYPES } from '../../../collections/content/ChangelogEntries'
import { RESERVED_POST_SLUGS } from '../../../collections/content/Posts'
import { SLUG_PATTERN } from '../../../collections/content/shared'
import { FEATURE_KEYS } from '../../plans/features'
import { CODE_LANGUAGES, MDX_COMPONENTS } from '../editor'

/** One reason a source file cannot be imported, at a line of that file (1-based). */
export type SourceProblem = { file: string; line: number; reason: string }

export class ContentSourceError extends Error {
  constructor(readonly problems: SourceProblem[]) {
    super(`content sources are invalid:\n${problems.map((p) => `  ${p.file}:${p.line}: ${p.reason}`).join('\n')}`)
    this.name = 'ContentSourceError'
  }
}

const IMAGE_EXTENSIONS = new Set(['.png', '.jpg', '.jpeg', '.webp', '.gif', '.avif'])

const day = z
  .string({ error: 'must be a date written as YYYY-MM-DD' })
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date written as YYYY-MM-DD')
  .refine(
    (value) =>
      !Number.isNaN(Date.parse(`${value}T00:00:00Z`)) && new Date(`${value}T00:00:00Z`).toISOString().startsWith(value),
    'is not a real date',
  )
const slug = z.string().max(96).regex(SLUG_PATTERN, 'must be lowercase letters, digits and single dashes')
const text = (max: number) =>
  z.string().trim().min(1, 'must not be empty').max(max, `must be at most ${max} characters`)

const postFrontmatter = z.strictObject({
  title: text(120),
  slug: slug
    .refine((value) => !(RESERVED_POST_SLUGS as readonly string[]).includes(value), 'is taken by a page of the site')
    .optional(),
  summary: text(300),
  date: day,
  author: text(80),
  tags: z.array(z.string().regex(SLUG_PATTERN, 'tags are lowercase words joined by dashes')).max(8).optional(),
  cover: z.string().optional(),
  coverAlt: text(200).optional(),
  requiredFeature: z.enum(FEATURE_KEYS).optional(),
  draft: z.boolean().optional(),
})

const changelogFrontmatter = z.strictObject({
  title: text(120),
  version: z.string().refine((value) => semver.valid(value) === value, 'must be a semantic version such as 1.4.0'),
  slug: slug.optional(),
  summary: text(300),
  date: day,
  changes: z.array(z.enum(CHANGE_TYPES)).optional(),
  draft: z.boolean().optional(),
})

export type PostFrontmatter = z.infer<typeof postFrontmatter>
export type ChangelogFrontmatter = z.infer<typeof changelogFrontmatter>

/** An image the body or the cover refers to, resolved to a file beside the source. */
export type ImageRef = { absolutePath: string; alt: string; line: number }

export type ParsedSource<F> = {
  /** The path shown in reports (relative to the project). */
  file: string
  absoluteFile: string
  frontmatter: F
  /** The Markdown body, image references still relative. */
  body: string
  images: ImageRef[]
  cover: ImageRef | null
}

const FRONTMATTER = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/

/** The line (1-based, within the YAML) of the frontmatter key an issue's path points at; 0 when absent. */
const lineOfPath = (yamlText: string, issuePath: readonly PropertyKey[]): number => {
  const lineCounter = new LineCounter()
  const document = parseDocument(yamlText, { lineCounter })
  let node: unknown = document.contents
  let offset: number | null = null
  for (const key of issuePath) {
    if (!isMap(node)) break
    const pair = node.items.find((item) => isPair(item) && isScalar(item.key) && item.key.value === key)
    if (!pair || !isScalar(pair.key)) break
    offset = pair.key.range?.[0] ?? offset
    node = pair.value
  }
  // A key that is not there (a missing required one) is reported at the frontmatter's opening line.
  return offset === null ? 0 : lineCounter.linePos(offset).line
}

const FENCE = /^\s*(```|~~~)\s*([\w+-]*)/
export const IMAGE = /!\[([^\]]*)\]\(([^)\s]+)\)/g
const TAG = /<\/?([A-Za-z][\w.-]*)([^>]*?)\/?>/g
const ATTRIBUTE = /([A-Za-z][\w-]*)\s*=\s*(?:"([^"]*)"|'([^']*)'|\{([^}]*)\})/g

/**
 * Check a Markdown body against what the editor can hold: fenced code in a known language, the
 * supported components with valid props, images that exist beside the file, no MDX imports,
 * exports or expressions, no level-1 heading (the title is the page's h1).
 */
const scanBody = (
  file: string,
  absoluteFile: string,
  body: string,
  firstLine: number,
  problems: SourceProblem[],
): ImageRef[] => {
  const images: ImageRef[] = []
  const open: { name: string; line: number }[] = []
  let fence: string | null = null
  body.split(/\r?\n/).forEach((raw, index) => {
    const line = firstLine + index
    const fenceMatch = FENCE.exec(raw)
    if (fence) {
      if (fenceMatch && fenceMatch[1] === fence && !fenceMatch[2]) fence = null
      return
    }
    if (fenceMatch) {
      fence = fenceMatch[1] ?? '```'
      const language = fenceMatch[2] ?? ''
      if (!language)
        problems.push({
          file,
          line,
          reason: `a code block needs a language (one of ${Object.keys(CODE_LANGUAGES).join(', ')})`,
        })
      else if (!(language in CODE_LANGUAGES))
        problems.push({
          file,
          line,
          reason: `unsupported code language "${language}" (use one of ${Object.keys(CODE_LANGUAGES).join(', ')})`,
        })
      return
    }
    if (/^\s*(import|export)\s/.test(raw))
      problems.push({ file, line, reason: 'MDX imports and exports are not supported' })
    if (/^#\s/.test(raw))
      problems.push({ file, line, reason: 'a level-1 heading: the title is the page heading, start sections at ##' })
    // Inline code may show anything: drop it before looking for tags, expressions and images.
    const prose = raw.replace(/`[^`]*`/g, '')
    if (/(^|[^\\]){/.test(prose))
      problems.push({ file, line, reason: 'MDX expressions ({...}) are not supported; escape a literal brace as \\{' })
    for (const match of prose.matchAll(TAG)) {
      const [whole, name = '', attributes = ''] = match
      const component = MDX_COMPONENTS[name]
      if (!component) {
        problems.push({
          file,
          line,
          reason: `unsupported component <${name}> (supported: ${Object.keys(MDX_COMPONENTS)
            .map((c) => `<${c}>`)
            .join(', ')})`,
        })
        continue
      }
      if (whole.startsWith('</')) {
        const last = open.pop()
        if (!last || last.name !== name) problems.push({ file, line, reason: `</${name}> closes nothing` })
        continue
      }
      for (const attribute of attributes.matchAll(ATTRIBUTE)) {
        const [, prop = '', double, single, expression] = attribute
        const allowed = component.props[prop]
        const value = double ?? single
        if (!allowed)
          problems.push({
            file,
            line,
            reason: `<${name}> has no prop "${prop}" (props: ${Object.keys(component.props).join(', ')})`,
          })
        else if (expression !== undefined)
          problems.push({ file, line, reason: `<${name} ${prop}> takes a quoted string, not an expression` })
        else if (!allowed.includes(value ?? ''))
          problems.push({ file, line, reason: `<${name} ${prop}="${value}"> must be one of ${allowed.join(', ')}` })
      }
      for (const prop of Object.keys(component.props)) {
        if (!new RegExp(`\\b${prop}\\s*=`).test(attributes))
          problems.push({ file, line, reason: `<${name}> needs the prop ${prop}` })
      }
      // The editor's block converter takes the text between the opening tag and the closing one.
      if (whole.endsWith('/>'))
        problems.push({ file, line, reason: `<${name}> needs its text between <${name}> and </${name}>` })
      else open.push({ name, line })
    }
    for (const match of prose.matchAll(IMAGE)) {
      const [, alt = '', target = ''] = match
      const image = resolveImage(file, absoluteFile, target, alt, line, problems)
      if (image) images.push(image)
    }
  })
  if (fence)
    problems.push({ file, line: firstLine + body.split(/\r?\n/).length - 1, reason: 'a code block is not closed' })
  for (const unclosed of open) problems.push({ file, line: unclosed.line, reason: `<${unclosed.name}> is not closed` })
  return images
}

const resolveImage = (
  file: string,
  absoluteFile: string,
  target: string,
  alt: string,
  line: number,
  problems: SourceProblem[],
): ImageRef | null => {
  if (/^[a-z]+:/i.test(target) || target.startsWith('/')) {
    problems.push({
      file,
      line,
      reason: `image "${target}": refer to a file beside the source (./images/name.png); remote and absolute images are not imported`,
    })
    return null
  }
  if (!alt.trim())
    problems.push({ file, line, reason: `image "${target}" needs alt text: ![what it shows](${target})` })
  if (!IMAGE_EXTENSIONS.has(path.extname(target).toLowerCase())) {
    problems.push({ file, line, reason: `image "${target}": use PNG, JPEG, WebP, AVIF or GIF` })
    return null
  }
  const absolutePath = path.resolve(path.dirname(absoluteFile), target)
  return { absolutePath, alt: alt.trim(), line }
}

/**
 * Parse one MDX source: YAML frontmatter validated against its collection's schema, and a body
 * limited to what the editor holds. Every problem is collected with its line, none thrown.
 */
export const parseSource = <K extends 'posts' | 'changelog_entries'>(
  kind: K,
  file: string,
  absoluteFile: string,
  source: string,
  problems: SourceProblem[],
  exists: (absolutePath: string) => boolean,
): ParsedSource<K extends 'posts' ? PostFrontmatter : ChangelogFrontmatter> | null => {
  const before = problems.length
  const match = FRONTMATTER.exec(source)
  if (!match) {
    problems.push({
      file,
      line: 1,
      reason: 'no frontmatter: start the file with a --- block of title, summary, date, ...',
    })
    return null
  }
  const yamlText = match[1] ?? ''
  const document = parseDocument(yamlText, { lineCounter: new LineCounter(), prettyErrors: true })
  if (document.errors.length > 0) {
    for (const error of document.errors)
      problems.push({
        file,
        line: (error.linePos?.[0]?.line ?? 1) + 1,
        reason: `frontmatter is not valid YAML: ${error.message.split('\n')[0]}`,
      })
    return null
  }
  const schema = kind === 'posts' ? postFrontmatter : changelogFrontmatter
  const raw = (document.toJS() ?? {}) as Record<string, unknown>
  const parsed = schema.safeParse(raw, { reportInput: true })
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const key = issue.code === 'unrecognized_keys' ? issue.keys[0] : undefined
      const issuePath = key ? [...issue.path, key] : issue.path
      const label = issuePath.length ? issuePath.join('.') : 'frontmatter'
      const reason =
        issue.code === 'unrecognized_keys'
          ? `unknown frontmatter key "${issue.keys.join('", "')}"`
          : issue.code === 'invalid_type' && issue.input === undefined
            ? `"${label}" is required`
            : `"${label}" ${issue.message}`
      problems.push({ file, line: lineOfPath(yamlText, issuePath) + 1, reason })
    }
  }
  const body = source.slice(match[0].length)
  const firstBodyLine = match[0].split('\n').length
  const images = scanBody(file, absoluteFile, body, firstBodyLine, problems)
  let cover: ImageRef | null = null
  if (kind === 'posts' && typeof raw.cover === 'string') {
    const line = lineOfPath(yamlText, ['cover']) + 1
    const alt = typeof raw.coverAlt === 'string' ? raw.coverAlt : ''
    if (!alt.trim())
      problems.push({ file, line, reason: '"coverAlt" is required with a cover: say what the image shows' })
    cover = resolveImage(file, absoluteFile, raw.cover, alt || 'cover', line, problems)
  }
  for (const image of [...images, ...(cover ? [cover] : [])]) {
    if (!exists(image.absolutePath))
      problems.push({
        file,
        line: image.line,
        reason: `image ${path.relative(path.dirname(absoluteFile), image.absolutePath)} does not exist`,
      })
  }
  if (!parsed.success || problems.length > before) return null
  return { file, absoluteFile, frontmatter: parsed.data as never, body, images, cover }
}

import { BlocksFeature, CodeBlock, lexicalEditor } from '@payloadcms/richtext-lexical'
import type { Block } from 'payload'

/** Languages a code block may name: the ones the pages highlight (src/content/render). */
export const CODE_LANGUAGES = {
  ts: 'TypeScript',
  tsx: 'TSX',
  js: 'JavaScript',
  json: 'JSON',
  bash: 'Bash',
  sql: 'SQL',
  yaml: 'YAML',
  diff: 'Diff',
  text: 'Plain text',
} as const

const CALLOUT_KINDS = ['info', 'tip', 'warning'] as const

/**
 * `<Callout kind="tip">One paragraph.</Callout>` in MDX; the block's `jsx` converter is what the
 * Markdown import (and export) of Payload's editor uses for the tag.
 */
const CalloutBlock: Block = {
  slug: 'Callout',
  interfaceName: 'CalloutBlock',
  labels: { singular: 'Callout', plural: 'Callouts' },
  fields: [
    { name: 'kind', type: 'select', required: true, defaultValue: 'info', options: [...CALLOUT_KINDS] },
    { name: 'text', type: 'textarea', required: true },
  ],
  jsx: {
    import: ({ children, props }) => ({ kind: props.kind as string, text: children.trim() }),
    export: ({ fields }) => ({ props: { kind: fields.kind as string }, children: String(fields.text ?? '') }),
  },
}

/** The MDX components the importer accepts, by tag name (each is a block of the editor below). */
export const MDX_COMPONENTS: Record<string, { props: Record<string, readonly string[]> }> = {
  Callout: { props: { kind: CALLOUT_KINDS } },
}

/**
 * The editor of posts' and changelog entries' bodies: Payload's default features (headings, lists,
 * links, quotes, uploads, ...) plus code blocks (from Markdown fences) and callouts.
 */
export const contentEditor = lexicalEditor({
  features: ({ defaultFeatures }) => [
    ...defaultFeatures,
    BlocksFeature({
      blocks: [CodeBlock({ defaultLanguage: 'ts', languages: { ...CODE_LANGUAGES } }), CalloutBlock],
    }),
  ],
})

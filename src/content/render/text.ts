/**
 * Plain text out of a Lexical editor state: for heading anchors, reading time and feed summaries.
 * Blocks count by their readable fields (a code block's code, a callout's text).
 */
type LexicalLike = { type?: string; text?: unknown; children?: unknown; fields?: unknown }

const asNodes = (value: unknown): LexicalLike[] => (Array.isArray(value) ? (value as LexicalLike[]) : [])

const blockText = (fields: unknown): string => {
  if (!fields || typeof fields !== 'object') return ''
  const { code, text } = fields as { code?: unknown; text?: unknown }
  return [code, text].filter((part): part is string => typeof part === 'string').join(' ')
}

/** The text of a node and its descendants, paragraphs separated by spaces. */
export const nodeText = (node: LexicalLike): string => {
  if (node.type === 'text' && typeof node.text === 'string') return node.text
  if (node.type === 'block' || node.type === 'inlineBlock') return blockText(node.fields)
  if (node.type === 'linebreak') return ' '
  const children = asNodes(node.children)
  const separator = node.type === 'root' || node.type === 'list' || node.type === 'quote' ? ' ' : ''
  return children.map(nodeText).join(separator)
}

/** The text of a whole editor state (`{ root: ... }`), or '' for anything else. */
export const lexicalText = (state: unknown): string => {
  if (!state || typeof state !== 'object' || !('root' in state)) return ''
  const root = (state as { root: LexicalLike }).root
  return asNodes(root.children).map(nodeText).join(' ')
}

const WORDS_PER_MINUTE = 225

/** Minutes to read a text at 225 words a minute, at least one. */
export const readingMinutes = (text: string): number => {
  const words = text.split(/\s+/).filter(Boolean).length
  return Math.max(1, Math.round(words / WORDS_PER_MINUTE))
}

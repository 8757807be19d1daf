import { grammarFor, highlightCode } from './highlight'

const LABELS: Record<string, string> = {
  ts: 'TypeScript',
  tsx: 'TSX',
  js: 'JavaScript',
  json: 'JSON',
  bash: 'Shell',
  sql: 'SQL',
  yaml: 'YAML',
  diff: 'Diff',
}

/** A code block, highlighted on the server (no client JavaScript). */
export const CodeBlock = async ({ code, language }: { code: string; language?: string | null }) => {
  const html = await highlightCode(code, language)
  const grammar = grammarFor(language)
  // Plain text needs no label; an unknown language shows its own name.
  const named = language?.trim() ?? ''
  const label = grammar
    ? LABELS[grammar]
    : ['', 'text', 'plaintext', 'txt'].includes(named.toLowerCase())
      ? null
      : named
  return (
    <figure className="prose-code">
      {label ? <figcaption className="prose-code-label">{label}</figcaption> : null}
      {/* Shiki escapes the code: the markup is its own spans. */}
      <div className="prose-code-body" dangerouslySetInnerHTML={{ __html: html }} />
    </figure>
  )
}

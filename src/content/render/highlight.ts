import { createHighlighterCore, type HighlighterCore } from 'shiki/core'
import { createJavaScriptRegexEngine } from 'shiki/engine/javascript'

/**
 * Server-side syntax highlighting with a fixed, small set of grammars (the languages our posts use)
 * and Shiki's JavaScript regex engine (no WebAssembly to load). Both themes are emitted as CSS
 * variables; blog.css picks the dark one under prefers-color-scheme: dark.
 */
const HIGHLIGHTED_LANGUAGES = ['ts', 'tsx', 'js', 'json', 'bash', 'sql', 'yaml', 'diff'] as const
export type HighlightedLanguage = (typeof HIGHLIGHTED_LANGUAGES)[number]

const ALIASES: Record<string, HighlightedLanguage> = {
  typescript: 'ts',
  javascript: 'js',
  jsx: 'tsx',
  mjs: 'js',
  cjs: 'js',
  sh: 'bash',
  shell: 'bash',
  shellscript: 'bash',
  zsh: 'bash',
  console: 'bash',
  pgsql: 'sql',
  postgres: 'sql',
  postgresql: 'sql',
  mysql: 'sql',
  yml: 'yaml',
  patch: 'diff',
  jsonc: 'json',
}

/** The grammar for a code block's language label, or null to show the code as plain text. */
export const grammarFor = (language: string | null | undefined): HighlightedLanguage | null => {
  const key = (language ?? '').trim().toLowerCase()
  if ((HIGHLIGHTED_LANGUAGES as readonly string[]).includes(key)) return key as HighlightedLanguage
  return ALIASES[key] ?? null
}

let highlighter: Promise<HighlighterCore> | undefined

const loadHighlighter = (): Promise<HighlighterCore> => {
  highlighter ??= createHighlighterCore({
    themes: [import('shiki/themes/github-light-high-contrast.mjs'), import('shiki/themes/github-dark.mjs')],
    langs: [
      import('shiki/langs/typescript.mjs'),
      import('shiki/langs/tsx.mjs'),
      import('shiki/langs/javascript.mjs'),
      import('shiki/langs/json.mjs'),
      import('shiki/langs/bash.mjs'),
      import('shiki/langs/sql.mjs'),
      import('shiki/langs/yaml.mjs'),
      import('shiki/langs/diff.mjs'),
    ],
    engine: createJavaScriptRegexEngine(),
  })
  return highlighter
}

const GRAMMAR_NAMES: Record<HighlightedLanguage, string> = {
  ts: 'typescript',
  tsx: 'tsx',
  js: 'javascript',
  json: 'json',
  bash: 'bash',
  sql: 'sql',
  yaml: 'yaml',
  diff: 'diff',
}

/**
 * `<pre class="shiki ..."><code>...</code></pre>` for the code, with light colours inline and the
 * dark ones in `--shiki-dark` variables. Shiki escapes the code; unknown languages get plain text.
 */
export const highlightCode = async (code: string, language: string | null | undefined): Promise<string> => {
  const grammar = grammarFor(language)
  const core = await loadHighlighter()
  return core.codeToHtml(code, {
    lang: grammar ? GRAMMAR_NAMES[grammar] : 'text',
    themes: { light: 'github-light-high-contrast', dark: 'github-dark' },
    defaultColor: 'light',
  })
}

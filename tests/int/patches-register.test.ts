import fs from 'node:fs'
import path from 'node:path'

import { describe, expect, it } from 'vitest'

/**
 * docs/PATCHES.md lists every workaround of Payload, Next, drizzle, pg or Node internals, and each
 * workaround's site carries a one-line `// PATCH: <id>` marker. This holds the two to each other: every
 * marker has an entry and every entry its markers, in exactly the files its "Where" names; the exports
 * and helpers it names exist there; and the tests, scripts and `node_modules/` files it cites exist, so
 * an upgrade that moves a framework file sends whoever upgrades back to the entry.
 */
const ROOT = path.resolve(__dirname, '../..')
const REGISTER = 'docs/PATCHES.md'
const SOURCES = [
  'src',
  'collections',
  'plugins',
  'endpoints',
  'scripts',
  'server.ts',
  'payload.config.ts',
  'next.config.mjs',
]
const SKIPPED = ['src/payload-types.ts', 'src/db/schema.generated.ts']
const FIELDS = ['Works around', 'Where', 'Proof', 'Upstream', 'Remove when', 'Status'] as const

const MARKER = /^\s*\/\/ PATCH: ([a-z0-9-]+)$/

type Entry = { id: string; fields: Map<string, string>; text: string }
type Site = { file: string; exported: string[]; inside: string[] }

const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8')

const sourceFiles = (entry: string): string[] => {
  // Installed packages are not the project's code (the bench installs its tools under scripts/bench/tools).
  if (SKIPPED.includes(entry) || path.basename(entry) === 'node_modules') return []
  const full = path.join(ROOT, entry)
  if (fs.statSync(full).isDirectory()) return fs.readdirSync(full).flatMap((name) => sourceFiles(`${entry}/${name}`))
  return /\.(tsx?|mjs)$/.test(entry) ? [entry] : []
}

/** The register's entries: `## \`id\`: title`, then `- **Field:** text` lines (continued by indented lines); `## Removed` is not one. */
const parseRegister = (markdown: string): Entry[] =>
  markdown
    .split(/^## /m)
    .slice(1)
    // The last section lists workarounds taken out, in prose: no markers, no fields.
    .filter((section) => !section.startsWith('Removed\n'))
    .map((section) => {
      const id = /^`([a-z0-9-]+)`/.exec(section)?.[1] ?? `unparsed: ${section.split('\n')[0]}`
      const fields = new Map<string, string>()
      let current: string | null = null
      for (const line of section.split('\n').slice(1)) {
        const field = /^- \*\*([^*]+):\*\* ?(.*)$/.exec(line)
        if (field) {
          current = field[1]!
          fields.set(current, field[2]!)
        } else if (current && /^ {2}\S/.test(line)) {
          fields.set(current, `${fields.get(current)} ${line.trim()}`)
        } else {
          current = null
        }
      }
      return { id, fields, text: section }
    })

/** "`file`: `a`, `b`; inside: `c`; `other`: inside: `d`": the files, their exports and their inner helpers. */
const parseWhere = (where: string): Site[] => {
  const sites: Site[] = []
  let insideOnly = false
  for (const token of where.match(/`[^`]+`|inside:/g) ?? []) {
    if (token === 'inside:') {
      insideOnly = true
      continue
    }
    const name = token.slice(1, -1)
    if (/\.(tsx?|mjs)$/.test(name)) {
      sites.push({ file: name, exported: [], inside: [] })
      insideOnly = false
    } else if (sites.length > 0) {
      sites.at(-1)![insideOnly ? 'inside' : 'exported'].push(name)
    }
  }
  return sites
}

const isExported = (source: string, name: string) =>
  new RegExp(`export\\s+(async\\s+)?(const|let|function|class|type|interface)\\s+${name}\\b`).test(source) ||
  new RegExp(`export\\s*\\{[^}]*\\b${name}\\b[^}]*\\}`).test(source) ||
  new RegExp(`export\\s+default\\s+${name}\\b`).test(source)

const isDeclared = (source: string, name: string) =>
  new RegExp(`\\b(const|let|function|class)\\s+${name}\\b`).test(source)

const entries = parseRegister(read(REGISTER))
const files = SOURCES.flatMap(sourceFiles)
const markers = files.flatMap((file) =>
  read(file)
    .split('\n')
    .flatMap((line, index) =>
      line.includes('PATCH:') ? [{ file, line: index + 1, text: line, id: MARKER.exec(line)?.[1] ?? null }] : [],
    ),
)

describe('docs/PATCHES.md', () => {
  it('has entries, each with a unique id and every field', () => {
    expect(entries.length).toBeGreaterThan(20)
    const ids = entries.map((entry) => entry.id)
    expect(ids.filter((id, index) => ids.indexOf(id) !== index)).toEqual([])
    for (const entry of entries) {
      expect(entry.id, entry.text.split('\n')[0]).toMatch(/^[a-z0-9-]+$/)
      expect(
        FIELDS.filter((field) => !entry.fields.get(field)?.trim()),
        entry.id,
      ).toEqual([])
    }
  })

  it('names files that exist, with the exports and helpers it says they have', () => {
    const problems: string[] = []
    for (const entry of entries) {
      const sites = parseWhere(entry.fields.get('Where') ?? '')
      if (sites.length === 0) problems.push(`${entry.id}: "Where" names no file`)
      for (const site of sites) {
        if (!fs.existsSync(path.join(ROOT, site.file))) {
          problems.push(`${entry.id}: ${site.file} does not exist`)
          continue
        }
        const source = read(site.file)
        for (const name of site.exported)
          if (!isExported(source, name)) problems.push(`${entry.id}: ${site.file} exports no ${name}`)
        for (const name of site.inside)
          if (!isDeclared(source, name)) problems.push(`${entry.id}: ${site.file} declares no ${name}`)
      }
    }
    expect(problems).toEqual([])
  })

  it('cites tests, scripts and framework files that exist', () => {
    const problems: string[] = []
    for (const entry of entries) {
      const cited = (entry.text.match(/`[^`\s]+`/g) ?? []).map((token) => token.slice(1, -1))
      for (const file of cited.filter(
        (token) => /^(node_modules|tests|scripts|src|docs)\//.test(token) && !token.includes('<'),
      )) {
        if (!fs.existsSync(path.join(ROOT, file))) problems.push(`${entry.id}: ${file} does not exist`)
      }
      const proof = entry.fields.get('Proof') ?? ''
      const proofs = (proof.match(/`(tests|scripts)\/[^`]+`/g) ?? []).length
      if (proofs === 0 && !/\bnone\b/.test(proof) && !proof.includes('npm run typecheck'))
        problems.push(`${entry.id}: "Proof" names no test (say "none" when there is none)`)
    }
    expect(problems).toEqual([])
  })
})

describe('// PATCH: markers', () => {
  it('are one line each: `// PATCH: <id>` and nothing else', () => {
    expect(
      markers
        .filter((marker) => marker.id === null)
        .map((marker) => `${marker.file}:${marker.line}: ${marker.text.trim()}`),
    ).toEqual([])
  })

  it('each has an entry in docs/PATCHES.md, in a file its "Where" names', () => {
    const byId = new Map(
      entries.map((entry) => [entry.id, parseWhere(entry.fields.get('Where') ?? '').map((site) => site.file)]),
    )
    const problems = markers.flatMap((marker) => {
      if (marker.id === null) return []
      const where = byId.get(marker.id)
      if (!where) return [`${marker.file}:${marker.line}: no entry "${marker.id}" in ${REGISTER}`]
      return where.includes(marker.file)
        ? []
        : [`${marker.file}:${marker.line}: entry "${marker.id}" does not name this file`]
    })
    expect(problems).toEqual([])
  })

  it('mark every file of every entry', () => {
    const problems = entries.flatMap((entry) =>
      parseWhere(entry.fields.get('Where') ?? '')
        .filter((site) => !markers.some((marker) => marker.id === entry.id && marker.file === site.file))
        .map((site) => `${entry.id}: no "// PATCH: ${entry.id}" in ${site.file}`),
    )
    expect(problems).toEqual([])
  })

  it('are found wherever they live: src/, plugins/, collections/, scripts/ and the root files', () => {
    const marked = new Set(markers.map((marker) => marker.file.split('/')[0]))
    expect([...marked].sort()).toEqual(
      expect.arrayContaining(['collections', 'next.config.mjs', 'plugins', 'scripts', 'server.ts', 'src']),
    )
  })
})

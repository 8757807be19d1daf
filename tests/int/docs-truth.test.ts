/**
 * The docs are the only reference a reader has, so what they state is pinned to the code here (as the
 * environment variables are in env-docs.test.ts): the README's map names every folder, no file points
 * at a document outside the repository, and the retry schedule in docs/WEBHOOKS.md is the code's.
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

import { describe, expect, it } from 'vitest'

import { ENV_SCHEMA } from '../../src/config/env'
import { MAX_ATTEMPTS, MAX_RETRY_DELAY_MS, retryDelayMs } from '../../src/webhooks/events'

const root = path.resolve(import.meta.dirname, '../..')
const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8')
const tracked = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
  cwd: root,
  encoding: 'utf8',
})
  .split('\n')
  .filter((file) => file && fs.existsSync(path.join(root, file)))

/** The README's map: the fenced block under "Where things live". */
const readmeMap = (): string[] => {
  const section = read('README.md').split('## Where things live')[1] ?? ''
  const block = /```\n([\s\S]*?)```/.exec(section)?.[1] ?? ''
  return block
    .split('\n')
    .map((line) => line.split(/\s{2,}/)[0]!.trim())
    .filter(Boolean)
}

describe("the README's map", () => {
  it('lists every top-level folder and every folder of src/', () => {
    const folders = new Set<string>()
    for (const file of tracked) {
      const parts = file.split('/')
      // src/ itself is its folders below.
      if (parts.length > 1 && parts[0] !== 'src') folders.add(`${parts[0]}/`)
      if (parts[0] === 'src' && parts.length > 2) folders.add(`src/${parts[1]}/`)
    }
    const listed = readmeMap()
    expect(listed.length).toBeGreaterThan(10)
    // A folder is listed by name, or through the one subfolder it holds (packages/standins/).
    const isListed = (folder: string) => listed.some((entry) => entry === folder || entry.startsWith(folder))
    expect([...folders].filter((folder) => !isListed(folder)).sort(), 'folders missing from the README map').toEqual([])
    expect(
      listed.filter((entry) => entry.endsWith('/') && !fs.existsSync(path.join(root, entry))),
      'map entries that are not folders',
    ).toEqual([])
  })
})

describe('references', () => {
  it('no file points at a document outside the repository', () => {
    const text = tracked.filter((file) => /\.(?:ts|tsx|mts|mjs|js|md|json|yml|yaml|sh|scss|css)$|^\.ci\//.test(file))
    const offenders = text.filter(
      (file) =>
        file !== 'tests/int/docs-truth.test.ts' &&
        /DESIGN\.md|STYLE\.md|\.\.\/shared\/(?:seeds|fixtures)\//.test(read(file)),
    )
    expect(offenders).toEqual([])
  })

  it('every docs/*.md a file names exists', () => {
    const docs = new Set(fs.readdirSync(path.join(root, 'docs')).map((name) => `docs/${name}`))
    const missing = new Set<string>()
    for (const file of tracked.filter((name) => /\.(?:ts|tsx|mjs|md)$/.test(name))) {
      for (const [name] of read(file).matchAll(/docs\/[A-Z][A-Z_]*\.md/g))
        if (!docs.has(name)) missing.add(`${file}: ${name}`)
    }
    expect([...missing]).toEqual([])
  })
})

const minutes = (ms: number) => Math.round(ms / 60_000)
const spoken = (total: number) => (total >= 60 ? `${Math.floor(total / 60)} h ${total % 60} min` : `${total} min`)

describe('docs/WEBHOOKS.md: the retry schedule', () => {
  const doc = read('docs/WEBHOOKS.md')
  const base = ENV_SCHEMA.shape.WEBHOOK_RETRY_BASE_MS.parse(undefined)

  it('names the default first wait, its doubling and the longest wait', () => {
    expect(base).toBe(10_000)
    expect(doc).toContain(
      `A failed attempt is tried again after ${base / 1000} s (\`WEBHOOK_RETRY_BASE_MS\`), then ${(2 * base) / 1000} s, ${(4 * base) / 1000} s`,
    )
    expect(MAX_RETRY_DELAY_MS).toBe(60 * 60 * 1000)
    expect(doc).toMatch(/never more\s+than an hour apart/)
  })

  it('names the number of attempts and when the last one comes, as the code computes them', () => {
    const waits = Array.from({ length: MAX_ATTEMPTS - 1 }, (_, index) => retryDelayMs(index + 1, base))
    const span = spoken(minutes(waits.reduce((sum, wait) => sum + wait, 0)))
    expect(doc).toMatch(new RegExp(`${MAX_ATTEMPTS} attempts in all, the last about ${span}\\s+after the first`))
    // Nowhere else in the document (the abuse table) a span the code does not give.
    const spans = [...doc.matchAll(/attempts over about (\d+ h \d+ min)/g)].map((match) => match[1])
    expect(spans.length).toBeGreaterThan(0)
    expect(new Set(spans)).toEqual(new Set([span]))
  })
})

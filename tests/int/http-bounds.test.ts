import fs from 'node:fs'
import path from 'node:path'

import { describe, expect, it } from 'vitest'

/*
 * Every string the service accepts has a schema maximum, so a huge value is refused (400) before it is
 * looked up, hashed, stored or counted. The request schemas (zod) live with the endpoints and the
 * operations; this reads them all, so a new one without a bound fails here. (Payload's own collection
 * fields are bounded by Payload's defaultMaxTextLength, 40,000, and by the fields' maxLength.)
 */

const ROOT = path.resolve(import.meta.dirname, '../..')
/**
 * Source that takes requests: endpoints and everything under src/ but the MDX importer (staff's files) and the environment's schema (the operator's settings, read at start).
 */
const SOURCES = ['endpoints', 'src']
const EXCLUDED = [path.join('src', 'content', 'import'), path.join('src', 'config', 'env.ts')]

const files = (dir: string): string[] =>
  fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = path.join(dir, entry.name)
    if (EXCLUDED.some((excluded) => relative.startsWith(excluded))) return []
    if (entry.isDirectory()) return files(relative)
    return /\.tsx?$/.test(entry.name) ? [relative] : []
  })

/** The chained calls after `start` (`.max(10).optional()`), up to the first `,` `)` `}` or `;` outside brackets. */
const chainAfter = (text: string, start: number): string => {
  let depth = 0
  for (let index = start; index < text.length; index += 1) {
    const char = text[index]!
    if ('([{'.includes(char)) depth += 1
    else if (')]}'.includes(char)) {
      if (depth === 0) return text.slice(start, index)
      depth -= 1
    } else if ((char === ',' || char === ';') && depth === 0) return text.slice(start, index)
  }
  return text.slice(start)
}

/** A regex is a bound when every repetition in it is bounded: no `+`, `*` or `{n,}`. */
const boundedRegex = (chain: string) => {
  const literal = /\.regex\(\s*\/(.+?)\/[a-z]*\s*[,)]/.exec(chain)?.[1]
  return literal !== undefined && !/(?<!\\)[+*]|\{\d+,\}/.test(literal)
}

const unbounded = (): string[] => {
  const found: string[] = []
  for (const file of SOURCES.flatMap(files)) {
    const text = fs.readFileSync(path.join(ROOT, file), 'utf8')
    if (!text.includes("from 'zod'")) continue
    for (const match of text.matchAll(/z\.(string|array)\(/g)) {
      // For z.array( the chain starts after its own argument list.
      const open = match.index + match[0].length
      const argsEnd = open + chainAfter(text, open).length + 1
      const chain = chainAfter(text, argsEnd)
      const ok = /\.(max|length)\(/.test(chain) || (match[1] === 'string' && boundedRegex(chain))
      if (!ok)
        found.push(
          `${file}:${text.slice(0, match.index).split('\n').length}: z.${match[1]}(...)${chain.split('\n')[0]}`,
        )
    }
  }
  return found
}

describe('request schemas', () => {
  it('every z.string() and z.array() a request reaches has a maximum (max, length, or a regex with bounded repetition)', () => {
    expect(unbounded()).toEqual([])
  })

  it('the check itself finds an unbounded schema', () => {
    const text =
      'z.object({ a: z.string().optional(), b: z.string().max(3), c: z.array(z.string().max(2)), d: z.string().regex(/^a+$/) })'
    const hits = [...text.matchAll(/z\.(string|array)\(/g)].map((match) => {
      const open = match.index + match[0].length
      const chain = chainAfter(text, open + chainAfter(text, open).length + 1)
      return /\.(max|length)\(/.test(chain) || (match[1] === 'string' && boundedRegex(chain))
    })
    expect(hits).toEqual([false, true, false, true, false])
  })
})

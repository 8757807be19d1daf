import fs from 'node:fs'
import path from 'node:path'

import { describe, expect, it } from 'vitest'

import { MAX_LIVE_API_KEYS } from '../../src/auth/api-keys'
import { MIN_PASSWORD_LENGTH } from '../../src/auth/sign-up'
import { ERROR_SENTENCES, errorSentence } from '../../src/http/error-sentences'
import { ERROR_CLASSES } from '../../src/http/payload-errors'

/**
 * Every error code the service's source can answer with has a customer sentence in
 * src/http/error-sentences.ts, and every sentence there belongs to a code still in use. The compiler
 * already refuses a `ServiceError`, `errorBody` or form `back` with a code that has no sentence (their
 * `code` is `ErrorCode`); the scan of the source here also finds codes written into strings (an
 * `?error=` in a redirect) and the sentences nothing answers with any more.
 */
const ROOT = path.resolve(__dirname, '../..')
const SOURCES = ['src', 'endpoints', 'plugins', 'collections', 'payload.config.ts']
// The generated types and the sentences themselves name no thrown code.
const SKIPPED = ['src/payload-types.ts', 'src/http/error-sentences.ts']

const sourceFiles = (entry: string): string[] => {
  const relative = path.relative(ROOT, entry)
  if (SKIPPED.some((skipped) => relative === skipped || relative.startsWith(`${skipped}/`))) return []
  if (fs.statSync(entry).isDirectory())
    return fs.readdirSync(entry).flatMap((name) => sourceFiles(path.join(entry, name)))
  return /\.tsx?$/.test(entry) ? [entry] : []
}

/** Each way a code reaches a response or a page: thrown, answered, mapped from a status, or a form's redirect. */
const CODE_PATTERNS = [
  /new ServiceError\(\s*\d{3},\s*'([a-z_]+)'/g,
  /errorBody\(\s*'([a-z_]+)'/g,
  /\bcode: '([a-z_]+)'/g,
  /^\s*[1-5]\d\d: '([a-z_]+)'/gm,
  /(?:error\.code|instanceof \w+) \? '([a-z_]+)'|error\.code : '([a-z_]+)'/g,
  /\b(?:failed|failure\(serverUrl,|back\('[^']*',)\s*'([a-z_]+)'/g,
  /[?&]\w*error=([a-z_]+)['`]/g,
  /\brefuseConnect\('([a-z_]+)'/g,
]

const codesInSource = (): Map<string, string> => {
  const found = new Map<string, string>()
  for (const file of SOURCES.flatMap((entry) => sourceFiles(path.join(ROOT, entry)))) {
    const text = fs.readFileSync(file, 'utf8')
    for (const pattern of CODE_PATTERNS) {
      for (const match of text.matchAll(pattern)) {
        const code = match.slice(1).find(Boolean)!
        if (!found.has(code)) found.set(code, path.relative(ROOT, file))
      }
    }
  }
  return found
}

/**
 * Payload's named errors answer with their class name in snake case (src/http/payload-errors.ts
 * `codeOf`), except those it maps to codes of its own.
 */
const payloadErrorCodes = (): string[] => {
  const mapped = new Set([
    'APIError',
    'AuthenticationError',
    'LockedAuth',
    'UnverifiedEmail',
    'UnauthorizedError',
    'Forbidden',
    'NotFound',
    'ValidationError',
  ])
  return ERROR_CLASSES.filter((name) => !mapped.has(name)).map((name) =>
    name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase(),
  )
}

describe('every error code as a sentence', () => {
  const found = codesInSource()

  it('finds the codes (the scan itself works)', () => {
    for (const code of [
      'license_required',
      'api_key_limit_reached',
      'validation_error',
      'payload_too_large',
      'missing_fields',
      'unavailable',
      'locked',
    ]) {
      expect(found.has(code), code).toBe(true)
    }
  })

  it('each code in the source has a sentence', () => {
    const missing = [...found].filter(([code]) => !(code in ERROR_SENTENCES)).map(([code, file]) => `${code} (${file})`)
    expect(missing).toEqual([])
  })

  it('each of Payload’s named errors has a sentence', () => {
    expect(payloadErrorCodes().filter((code) => !(code in ERROR_SENTENCES))).toEqual([])
  })

  it('no sentence is left for a code nothing answers with any more', () => {
    const known = new Set([...found.keys(), ...payloadErrorCodes()])
    expect(Object.keys(ERROR_SENTENCES).filter((code) => !known.has(code))).toEqual([])
  })

  it('sentences are sentences: capitalised, ending in a full stop, no code or jargon in them', () => {
    for (const [code, sentence] of Object.entries(ERROR_SENTENCES)) {
      expect(sentence, code).toMatch(/^[A-Z].*\.$/)
      expect(sentence, code).not.toMatch(/[a-z]+_[a-z]+|\/api\/|HTTP|\b[45]\d\d\b/)
    }
  })

  it('the numbers in sentences follow the limits they state', () => {
    expect(ERROR_SENTENCES.weak_password).toContain(`${MIN_PASSWORD_LENGTH} characters`)
    expect(ERROR_SENTENCES.api_key_limit_reached).toContain(`${MAX_LIVE_API_KEYS} API keys`)
  })

  it('an unknown code (a tampered query parameter) gets the fallback, never itself', () => {
    expect(errorSentence('<script>')).toBe(ERROR_SENTENCES.unavailable)
    expect(errorSentence('toString')).toBe(ERROR_SENTENCES.unavailable)
    expect(errorSentence(undefined, 'The download failed.')).toBe('The download failed.')
    expect(errorSentence('version_not_allowed')).toBe(ERROR_SENTENCES.version_not_allowed)
  })
})

import fc from 'fast-check'
import { describe, expect, it } from 'vitest'

import { returnPath } from '../../src/app/(frontend)/preview/paths'
import { landing } from '../../src/auth/callback'
import { sameSitePath } from '../../src/http/paths'

/*
 * Every redirect the service builds from a visitor's input goes through sameSitePath (sign-in's
 * `next`, the OAuth, magic-link and confirmation landings, the portal's return_url, the preview
 * exit). The attack: a path that looks relative as text but that the browser's URL parser turns into
 * another host once it resolves dot segments, percent-escapes or backslashes (`/.//evil.example`
 * becomes `//evil.example`, a protocol-relative URL).
 */

const SITE = 'https://kit.example.com'

/** Where a browser goes when it follows `Location: location` from a page of the site. */
const browserTarget = (location: string) => new URL(location, `${SITE}/preview/exit`)

const ATTACKS = [
  '/.//evil.example',
  '/a/..//evil.example',
  '/%2e//evil.example',
  '/%2E%2E//evil.example',
  '/a/%2e%2e//evil.example',
  '/./%2F/evil.example',
  '/.%2F%2Fevil.example',
  '/%252F%252Fevil.example',
  '/.\\evil.example',
  '/./\\evil.example',
  '/%09/evil.example',
  '/\t/evil.example',
  '//evil.example',
  '/\\evil.example',
  'https://evil.example',
  'javascript:alert(1)',
]

// Tokens that make paths tricky: slashes, backslashes, dots, their percent-escapes (once and twice),
// schemes, hosts, user-info, whitespace and control characters, query and fragment marks.
const token = fc.constantFrom(
  '/',
  '//',
  '\\',
  '.',
  '..',
  '%2e',
  '%2E',
  '%2f',
  '%2F',
  '%5c',
  '%5C',
  '%252f',
  '%252e',
  '%25',
  '%',
  'evil.example',
  'a',
  'b',
  ':',
  '@',
  '?',
  '#',
  '=',
  '&',
  'http:',
  'https:',
  'javascript:',
  '\t',
  '\n',
  ' ',
  '\u0000',
  'é',
  '%00',
)
const pathLike = fc.array(token, { minLength: 1, maxLength: 12 }).map((parts) => parts.join(''))
const anyInput = fc.oneof(
  pathLike,
  fc.string(),
  fc.webUrl(),
  pathLike.map((p) => `/${p}`),
)

describe('sameSitePath', () => {
  it.each(ATTACKS)('refuses %s, and the landing falls back to the dashboard', (attack) => {
    expect(sameSitePath(attack, SITE)).toBeNull()
    expect(landing(SITE, attack)).toBe(`${SITE}/dashboard`)
  })

  it.each(['/dashboard', '/dashboard?tab=billing#top', '/blog/a-post', '/a/b/../c'])(
    'keeps %s as the path the browser would reach',
    (path) => {
      const kept = sameSitePath(path, SITE)
      expect(kept).not.toBeNull()
      expect(browserTarget(kept!).origin).toBe(SITE)
    },
  )

  it('resolves dot segments before it answers: what is checked is what the Location header carries', () => {
    expect(sameSitePath('/a/b/../c?x=1', SITE)).toBe('/a/c?x=1')
  })

  it('no output ever leaves the site, and every output is its own answer (property)', () => {
    fc.assert(
      fc.property(anyInput, (input) => {
        const path = sameSitePath(input, SITE)
        if (path === null) return
        const target = browserTarget(path)
        expect(target.origin).toBe(SITE)
        expect(path.startsWith('/') && !path.startsWith('//') && !path.includes('\\')).toBe(true)
        expect(sameSitePath(path, SITE)).toBe(path)
        expect(landing(SITE, input)).toBe(`${SITE}${path}`)
        expect(new URL(landing(SITE, input)).origin).toBe(SITE)
      }),
      { numRuns: 20_000 },
    )
  })
})

describe('the preview exit (returnPath)', () => {
  it.each(ATTACKS)('sends %s to the blog', (attack) => {
    expect(returnPath(attack)).toBe('/blog')
  })

  it.each(['/api/users', '/admin', '/%61pi/users', '/blog/../api/users', '/ADMIN/collections'])(
    'does not return to the API or the admin: %s',
    (path) => {
      expect(returnPath(path)).toBe('/blog')
    },
  )

  it('returns to a page of the site', () => {
    expect(returnPath('/blog/a-post?x=1#top')).toBe('/blog/a-post?x=1#top')
    expect(returnPath(null)).toBe('/blog')
  })

  it('never leaves the site (property)', () => {
    fc.assert(
      fc.property(anyInput, (input) => {
        const path = returnPath(input)
        expect(browserTarget(path).origin).toBe(SITE)
        expect(path.startsWith('//')).toBe(false)
      }),
      { numRuns: 20_000 },
    )
  })
})

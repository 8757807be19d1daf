import { describe, expect, it } from 'vitest'

import nextConfig from '../../next.config.mjs'

/*
 * A single-use link (/auth/callback: confirmation, magic link, email change, recovery, OAuth) must be
 * requested once. Chromium retries a navigation whose response names a Critical-CH hint the request
 * lacked, and a browser that never stored the site's Accept-CH (a fresh profile, an email opened on
 * another device) lacks it: with Payload's site-wide Critical-CH, the first request spent the link and
 * the retry answered "invalid link". Only the admin keeps the hint critical.
 */

type Rule = { source: string; headers: { key: string; value: string }[] }
type Config = { headers: () => Promise<Rule[]>; turbopack?: { resolveAlias?: Record<string, string> } }

const configFor = (phase: string) => (nextConfig as unknown as (phase: string) => Config)(phase)

describe('response headers from next.config.mjs', () => {
  it('Critical-CH is sent on the admin only; every other path only advertises the hint', async () => {
    const rules = await configFor('phase-production-server').headers()
    const critical = rules.filter((rule) => rule.headers.some((header) => header.key.toLowerCase() === 'critical-ch'))
    expect(critical.map((rule) => rule.source)).toEqual(['/admin/:path*'])
    const everywhere = rules.find((rule) => rule.source === '/:path*')
    expect(everywhere?.headers.map((header) => header.key)).toContain('Accept-CH')
  })

  it("a production build's Payload routes get the published config; development keeps the config module", () => {
    expect(configFor('phase-production-build').turbopack?.resolveAlias?.['@payload-config']).toBe(
      './src/app/_lib/published-config.ts',
    )
    for (const phase of ['phase-development-server', 'phase-production-server'])
      expect(configFor(phase).turbopack?.resolveAlias?.['@payload-config']).toBeUndefined()
  })
})

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

describe('response headers from next.config.mjs', () => {
  it('Critical-CH is sent on the admin only; every other path only advertises the hint', async () => {
    const rules = await (nextConfig as { headers: () => Promise<Rule[]> }).headers()
    const critical = rules.filter((rule) => rule.headers.some((header) => header.key.toLowerCase() === 'critical-ch'))
    expect(critical.map((rule) => rule.source)).toEqual(['/admin/:path*'])
    const everywhere = rules.find((rule) => rule.source === '/:path*')
    expect(everywhere?.headers.map((header) => header.key)).toContain('Accept-CH')
  })
})

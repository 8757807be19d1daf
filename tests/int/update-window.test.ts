import { describe, expect, it } from 'vitest'

import {
  addMonths,
  describeWindow,
  newestStableMajor,
  openingWindow,
  renewalOpensSomething,
  renewedWindow,
  type UpdateWindow,
  windowCovers,
  windowInWords,
} from '../../src/licensing/update-window'

const release = (version: string, publishedAt = '2026-01-15T00:00:00.000Z') => ({ version, publishedAt })
const NOW = new Date('2026-06-30T12:00:00.000Z')

describe('update windows (src/licensing/update-window.ts)', () => {
  it('lifetime covers every release; major up to its major, pre-releases of the next major included in none', () => {
    const lifetime: UpdateWindow = { policy: 'lifetime', major: null, until: null }
    const major: UpdateWindow = { policy: 'major', major: 2, until: null }
    expect(
      ['1.0.0', '2.9.9', '3.0.0', '3.0.0-beta.1'].map((version) => windowCovers(lifetime, release(version))),
    ).toEqual([true, true, true, true])
    expect(
      ['1.0.0', '2.9.9', '2.10.0-rc.1', '3.0.0', '3.0.0-beta.1'].map((version) =>
        windowCovers(major, release(version)),
      ),
    ).toEqual([true, true, true, false, false])
  })

  it('months covers releases published before its end, not at it', () => {
    const window: UpdateWindow = { policy: 'months', major: null, until: '2026-03-01T00:00:00.000Z' }
    expect(windowCovers(window, release('9.0.0', '2026-02-28T23:59:59.999Z'))).toBe(true)
    expect(windowCovers(window, release('9.0.1', '2026-03-01T00:00:00.000Z'))).toBe(false)
  })

  it('opens at grant from the plan: the newest stable major, or the months from now', () => {
    expect(openingWindow({ updatePolicy: 'major', updateMonths: null }, 4, NOW)).toEqual({
      policy: 'major',
      major: 4,
      until: null,
    })
    expect(openingWindow({ updatePolicy: 'months', updateMonths: 12 }, 4, NOW)).toEqual({
      policy: 'months',
      major: null,
      until: '2027-06-30T12:00:00.000Z',
    })
    expect(openingWindow({ updatePolicy: 'lifetime', updateMonths: null }, 4, NOW)).toEqual({
      policy: 'lifetime',
      major: null,
      until: null,
    })
    expect(newestStableMajor(['1.2.0', '3.0.0-beta.1', '2.4.1'])).toBe(2)
    expect(newestStableMajor([])).toBe(1)
    expect(newestStableMajor(['0.9.0'])).toBe(1)
  })

  it('a renewal moves major to the newest stable major (never down), months from the later of now and the end', () => {
    const plan = { updatePolicy: 'months' as const, updateMonths: 6 }
    expect(renewedWindow({ policy: 'major', major: 2, until: null }, plan, 3, NOW).major).toBe(3)
    expect(renewedWindow({ policy: 'major', major: 5, until: null }, plan, 3, NOW).major).toBe(5)
    // Lapsed: six months from now. Still running: six more months after its end.
    expect(
      renewedWindow({ policy: 'months', major: null, until: '2026-01-01T00:00:00.000Z' }, plan, 1, NOW).until,
    ).toBe('2026-12-30T12:00:00.000Z')
    expect(
      renewedWindow({ policy: 'months', major: null, until: '2026-08-31T00:00:00.000Z' }, plan, 1, NOW).until,
    ).toBe('2027-02-28T00:00:00.000Z')
  })

  it('a renewal is offered only when a published stable release lies outside the window', () => {
    const major: UpdateWindow = { policy: 'major', major: 2, until: null }
    expect(renewalOpensSomething(major, [release('2.1.0'), release('3.0.0-beta.1')])).toBe(false)
    expect(renewalOpensSomething(major, [release('2.1.0'), release('3.0.0')])).toBe(true)
    expect(renewalOpensSomething({ policy: 'lifetime', major: null, until: null }, [release('9.0.0')])).toBe(false)
  })

  it('reads out the window for apps (only the fields its policy uses) and for customers', () => {
    expect(describeWindow({ policy: 'major', major: 2, until: null })).toEqual({ policy: 'major', major: 2 })
    expect(describeWindow({ policy: 'months', major: null, until: '2027-01-01T00:00:00.000Z' })).toEqual({
      policy: 'months',
      until: '2027-01-01T00:00:00.000Z',
    })
    expect(describeWindow({ policy: 'lifetime', major: 3, until: null })).toEqual({ policy: 'lifetime' })
    expect(windowInWords({ policy: 'major', major: 2, until: null })).toBe('releases up to 2.x')
    expect(windowInWords({ policy: 'months', major: null, until: '2027-01-01T00:00:00.000Z' })).toBe(
      'releases published until January 1, 2027',
    )
    // As Postgres adds an interval of months (the grant's window is computed there): the month's last day at most.
    expect(addMonths(new Date('2026-01-31T10:00:00.000Z'), 1).toISOString()).toBe('2026-02-28T10:00:00.000Z')
    expect(addMonths(new Date('2024-01-31T10:00:00.000Z'), 1).toISOString()).toBe('2024-02-29T10:00:00.000Z')
    expect(addMonths(new Date('2026-11-30T10:00:00.000Z'), 3).toISOString()).toBe('2027-02-28T10:00:00.000Z')
    expect(addMonths(new Date('2026-05-15T10:00:00.000Z'), 12).toISOString()).toBe('2027-05-15T10:00:00.000Z')
  })
})

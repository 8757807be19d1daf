import { describe, expect, it } from 'vitest'

import { formatAmount } from '../../src/app/(frontend)/dashboard/words'
import { formatMinorAmount, formatMoney } from '../../src/plans/format'

describe('amounts in the processor minor unit (src/plans/format.ts)', () => {
  it('divides by the currency own minor unit: cents, none for yen, thousandths for dinars', () => {
    expect(formatMinorAmount(15000, 'usd')).toBe('$150')
    expect(formatMinorAmount(9950, 'usd')).toBe('$99.50')
    expect(formatMinorAmount(1500, 'jpy')).toBe('¥1,500')
    expect(formatMinorAmount(1500, 'kwd')).toMatch(/^KWD\s1\.50$/)
  })

  it('the dashboard payments keep their cents; plan prices drop whole zeros', () => {
    expect(formatAmount(14900, 'usd')).toBe('$149.00')
    expect(formatAmount(1500, 'jpy')).toBe('¥1,500')
    expect(formatMoney(149)).toBe('$149')
  })
})

/**
 * Raw rows are typed from the generated schema (src/db/rows.ts, SqlRow): these are checked by the type
 * checker (`npm run typecheck`, in CI before the tests), which fails when the mapping goes wrong, and
 * at run time against what pg really hands back for the same columns.
 */
import { describe, expect, expectTypeOf, it } from 'vitest'

import type { SqlRow } from '../../src/db/rows'
import { type licenses, type plans } from '../../src/db/schema.generated'
import { executeOn, sql } from '../../src/db/transaction'
import { usePayload } from '../support/payload'

const payload = usePayload()

describe('SqlRow: raw rows typed from the schema', () => {
  it('keys a row by column name, with the types pg returns', () => {
    type License = SqlRow<typeof licenses>
    expectTypeOf<License['key']>().toEqualTypeOf<string>()
    expectTypeOf<License['valid_until']>().toEqualTypeOf<Date | string | null>()
    expectTypeOf<License['updates_major']>().toEqualTypeOf<string | number | null>()
    expectTypeOf<License['id']>().toEqualTypeOf<number>()
    expectTypeOf<SqlRow<typeof plans>['max_activations']>().toEqualTypeOf<string | number | null>()
    expectTypeOf<SqlRow<typeof plans>['monthly_price']>().toEqualTypeOf<string | number>()
    // @ts-expect-error the ORM's property name is not a column of the raw row
    expectTypeOf<License['validUntil']>().toBeNever()
  })

  it('matches what pg returns for a timestamp and a numeric column', async () => {
    const [row] = await executeOn<Pick<SqlRow<typeof plans>, 'created_at' | 'monthly_price'>>(
      payload(),
      undefined,
      // The column types of plans.created_at (timestamptz) and plans.monthly_price (numeric), as pg parses them.
      sql`SELECT now()::timestamptz(3) AS created_at, 1500::numeric AS monthly_price`,
    )
    // Payload's drizzle session leaves pg's parsing off: a timestamp arrives as text, a numeric as text.
    expect(typeof row!.created_at).toBe('string')
    expect(new Date(row!.created_at).toISOString()).toMatch(/^\d{4}-\d{2}-\d{2}T/)
    expect(typeof row!.monthly_price).toBe('string')
  })
})

import type { PgTable } from '@payloadcms/db-postgres/drizzle/pg-core'

/** Timestamps as ISO strings. */
export const iso = (value: unknown): string | null =>
  value === null || value === undefined
    ? null
    : value instanceof Date
      ? value.toISOString()
      : new Date(value as string | number).toISOString()

/** Numbers and ids: pg returns numeric columns as strings. */
export const num = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value))

/**
 * A raw row of a generated table (./schema.generated.ts), keyed by column name as `execute` returns it,
 * typed from the schema so a renamed or retyped column breaks the build. Raw SQL skips the ORM's
 * mapping: numeric columns arrive as strings whatever mode Payload reads them in, and timestamps as text
 * through Payload's session (a `Date` from a pool with pg's parsers on), so both are typed as they may
 * arrive (`iso`, `num` and `isoTimestamp` read either). Pick the columns a statement selects: `Pick<SqlRow<typeof licenses>, 'id' | 'status'>`.
 */
export type SqlRow<T extends PgTable> = {
  [K in keyof T['_']['columns'] as T['_']['columns'][K]['_']['name']]: SqlValue<T['_']['columns'][K]>
}

type SqlValue<C extends PgTable['_']['columns'][string]> =
  | (C['_']['columnType'] extends 'PgTimestamp' | 'PgTimestampString' | 'PgDate' | 'PgDateString'
      ? Date | string
      : C['_']['columnType'] extends 'PgNumeric' | 'PgNumericNumber' | 'PgNumericBigInt'
        ? string | number
        : C['_']['data'])
  | (C['_']['notNull'] extends true ? never : null)

/** Raw SQL rows (src/db/transaction.ts, execute) in the shape Payload's Local API returns at depth 0. */
export type Row = Record<string, unknown>

/** Timestamps as ISO strings. */
export const iso = (value: unknown): string | null =>
  value === null || value === undefined
    ? null
    : value instanceof Date
      ? value.toISOString()
      : new Date(value as string | number).toISOString()

/** Numbers and ids: pg returns numeric columns as strings. */
export const num = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value))

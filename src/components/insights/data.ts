/**
 * The insights' rows (src/staff/insights-types.ts) reshaped for a chart and its table: one record per day
 * of the range, with a value for each currency, plan or release; a day without a row counts zero.
 */
export type DayValues = { day: string; values: Record<string, number> }

/** The distinct keys of the rows, in the order first seen (the queries order them). */
export const keysOf = <Row>(rows: readonly Row[], keyOf: (row: Row) => string): string[] => [
  ...new Set(rows.map(keyOf)),
]

/** Every day of the range with the sum of `valueOf` per key; keys missing on a day are 0. */
export const byDay = <Row extends { day: string }>(
  days: readonly string[],
  rows: readonly Row[],
  keyOf: (row: Row) => string,
  valueOf: (row: Row) => number,
): DayValues[] => {
  const keys = keysOf(rows, keyOf)
  const records = new Map(days.map((day) => [day, { day, values: Object.fromEntries(keys.map((key) => [key, 0])) }]))
  for (const row of rows) {
    const record = records.get(row.day)
    if (record) record.values[keyOf(row)] = (record.values[keyOf(row)] ?? 0) + valueOf(row)
  }
  return [...records.values()]
}

/** Every day of the range with the named fields summed over its rows (all currencies, say); 0 when it has none. */
export const totalsByDay = <Row extends { day: string }, Field extends keyof Row & string>(
  days: readonly string[],
  rows: readonly Row[],
  fields: readonly Field[],
): Array<{ day: string } & Record<Field, number>> => {
  const records = new Map(
    days.map((day) => [
      day,
      { day, ...Object.fromEntries(fields.map((field) => [field, 0])) } as { day: string } & Record<Field, number>,
    ]),
  )
  for (const row of rows) {
    const record = records.get(row.day)
    if (record)
      for (const field of fields) record[field] = (record[field] + Number(row[field])) as (typeof record)[Field]
  }
  return [...records.values()]
}

export const sum = <Row>(rows: readonly Row[], valueOf: (row: Row) => number): number =>
  rows.reduce((total, row) => total + valueOf(row), 0)

/** The rows of one key (a currency), keeping their order. */
export const rowsOf = <Row>(rows: readonly Row[], keyOf: (row: Row) => string, key: string): Row[] =>
  rows.filter((row) => keyOf(row) === key)

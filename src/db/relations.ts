/** The id of a relationship field, whether Payload returned it populated (an object) or as the id. */
export const relationId = (value: unknown): number | null =>
  value == null ? null : typeof value === 'object' ? ((value as { id?: number }).id ?? null) : (value as number)

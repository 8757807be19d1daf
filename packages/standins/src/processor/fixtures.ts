import fixtures from './stripe-fixtures.json' with { type: 'json' }

/**
 * Real example objects, one per resource, copied from stripe/openapi `openapi/fixtures3.json`
 * (commit 19f3c4471a19203eefa9b8e04d83b471a7ed2c00, MIT license). Every object the stand-in hands out
 * starts as a deep copy of its example, so fields nobody here thought of still have Stripe's shape.
 */
export type FixtureName = keyof typeof fixtures

/**
 * A deep copy of the example with `fields` laid over it. The examples predate API version
 * 2026-10-28.endive, so the SDK's types for that version cannot be checked against them: the caller
 * names the type it builds and supplies the fields that version added or moved.
 */
export const fromFixture = <T>(name: FixtureName, fields: Record<string, unknown>): T =>
  ({ ...structuredClone(fixtures[name]), ...fields }) as T

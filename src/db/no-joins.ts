import type { FindOneArgs } from 'payload'

// PATCH: no-joins-type
/**
 * Spread into a direct `payload.db.findOne`/`find` on `users`: read the row without the customer
 * view's join subqueries (collections/CustomerView.ts), which the adapter runs unless told not to.
 * Payload types `joins` there as `JoinQuery<string>`, which resolves to never; the adapter takes false.
 */
export const WITHOUT_JOINS = { joins: false } as unknown as Pick<FindOneArgs, 'joins'>

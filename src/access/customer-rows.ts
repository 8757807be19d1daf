import type { Access, CollectionConfig } from 'payload'

import { or, ownRows } from './compose'
import { admins, staff } from './roles'

/**
 * Billing and licensing rows: customers read their own, support reads all, only admins write
 * through the API. The service itself writes them with overrideAccess (webhook, jobs).
 */
export const customerRowsAccess = (ownerField = 'user'): NonNullable<CollectionConfig['access']> => ({
  read: or(staff, ownRows(ownerField)),
  create: admins,
  update: admins,
  delete: admins,
})

/** Internal rows (the processor's event log): staff read, nobody writes through the API. */
export const staffReadOnly: NonNullable<CollectionConfig['access']> = {
  read: staff,
  create: (() => false) as Access,
  update: admins,
  delete: admins,
}

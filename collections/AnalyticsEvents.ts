import type { CollectionConfig } from 'payload'

import { customerRowsAccess } from '../src/access/customer-rows'

/** Product analytics: purchase_completed, subscription_started, license_revoked, ... */
export const AnalyticsEvents: CollectionConfig = {
  slug: 'analytics_events',
  admin: {
    useAsTitle: 'name',
    defaultColumns: ['name', 'user', 'occurredAt', 'sourceEventId'],
    group: 'Billing',
  },
  access: customerRowsAccess(),
  indexes: [{ fields: ['name', 'sourceEventId'], unique: true }],
  fields: [
    { name: 'name', type: 'text', required: true, index: true },
    { name: 'user', type: 'relationship', relationTo: 'users', index: true },
    { name: 'email', type: 'email' },
    { name: 'properties', type: 'json' },
    { name: 'occurredAt', type: 'date', required: true },
    {
      name: 'sourceEventId',
      type: 'text',
      required: true,
      admin: { description: 'The processor event (or staff action) it came from: one analytics event per source.' },
    },
  ],
}

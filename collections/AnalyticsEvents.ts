import type { CollectionConfig } from 'payload'

import { customerRowsAccess } from '../src/access/customer-rows'
import { GROUPS } from './options'

/** Product analytics: purchase_completed, subscription_started, license_revoked, ... */
export const AnalyticsEvents: CollectionConfig = {
  slug: 'analytics_events',
  labels: { singular: 'Analytics event', plural: 'Analytics events' },
  admin: {
    useAsTitle: 'name',
    defaultColumns: ['name', 'user', 'email', 'occurredAt'],
    group: GROUPS.sales,
    description:
      'What happened, for product analytics: purchases, subscriptions started or ended, licenses revoked. Written by the service.',
  },
  access: customerRowsAccess(),
  indexes: [{ fields: ['name', 'sourceEventId'], unique: true }],
  fields: [
    {
      name: 'name',
      label: 'Event',
      type: 'text',
      required: true,
      index: true,
      admin: { description: 'Such as purchase_completed or license_revoked.' },
    },
    { name: 'user', label: 'Customer', type: 'relationship', relationTo: 'users', index: true },
    { name: 'email', type: 'email' },
    { name: 'properties', label: 'Details', type: 'json' },
    { name: 'occurredAt', label: 'Happened at', type: 'date', required: true },
    {
      name: 'sourceEventId',
      label: 'Source',
      type: 'text',
      required: true,
      admin: { description: 'The processor event (or staff action) it came from: one analytics event per source.' },
    },
  ],
}

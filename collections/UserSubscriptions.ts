import type { CollectionConfig } from 'payload'

import { customerRowsAccess } from '../src/access/customer-rows'
import { SUBSCRIPTION_STATUSES } from '../src/billing/statuses'

/** The processor's subscriptions, one row each, written only by the webhook. */
export const UserSubscriptions: CollectionConfig = {
  slug: 'user_subscriptions',
  admin: {
    useAsTitle: 'processorSubscriptionId',
    defaultColumns: ['processorSubscriptionId', 'user', 'email', 'plan', 'status', 'currentPeriodEnd'],
    group: 'Billing',
  },
  access: customerRowsAccess(),
  fields: [
    { name: 'user', type: 'relationship', relationTo: 'users', index: true },
    { name: 'email', type: 'email', index: true, admin: { description: 'Checkout email; links an anonymous purchase to an account.' } },
    { name: 'plan', type: 'relationship', relationTo: 'plans' },
    { name: 'processorCustomerId', type: 'text', index: true },
    { name: 'processorSubscriptionId', type: 'text', required: true, unique: true },
    { name: 'processorPriceId', type: 'text' },
    { name: 'status', type: 'select', required: true, options: [...SUBSCRIPTION_STATUSES] },
    { name: 'billingCycle', type: 'select', options: ['monthly', 'yearly'] },
    { name: 'currentPeriodEnd', type: 'date' },
    { name: 'cancelAtPeriodEnd', type: 'checkbox', defaultValue: false },
    { name: 'canceledAt', type: 'date' },
    {
      name: 'fullyRefunded',
      type: 'checkbox',
      defaultValue: false,
      admin: { description: 'Its latest invoice was refunded in full. Access still follows the status: cancel to end it.' },
    },
    {
      name: 'disputeStatus',
      type: 'select',
      options: ['none', 'open', 'won', 'lost'],
      defaultValue: 'none',
      admin: { description: 'The worst chargeback on any of its invoices: open suspends the license, lost revokes it.' },
    },
    {
      name: 'processorSnapshotAt',
      type: 'date',
      admin: {
        readOnly: true,
        date: { pickerAppearance: 'dayAndTime' },
        description: 'When the processor state recorded here was read; an older read never overwrites it.',
      },
    },
  ],
}

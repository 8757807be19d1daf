import type { CollectionConfig } from 'payload'

import { customerRowsAccess } from '../src/access/customer-rows'

/** Lifetime purchases, one row per processor payment intent, written only by the webhook. */
export const OneTimePurchases: CollectionConfig = {
  slug: 'one_time_purchases',
  admin: {
    useAsTitle: 'processorPaymentIntentId',
    defaultColumns: ['processorPaymentIntentId', 'user', 'email', 'plan', 'status', 'grantedAt', 'revokedAt'],
    group: 'Billing',
  },
  access: customerRowsAccess(),
  fields: [
    { name: 'user', type: 'relationship', relationTo: 'users', index: true },
    { name: 'email', type: 'email', index: true },
    { name: 'plan', type: 'relationship', relationTo: 'plans' },
    { name: 'processorPaymentIntentId', type: 'text', required: true, unique: true },
    { name: 'processorCheckoutSessionId', type: 'text', unique: true },
    { name: 'processorCustomerId', type: 'text', index: true },
    { name: 'processorChargeId', type: 'text', index: true },
    { name: 'processorPriceId', type: 'text' },
    { name: 'amount', type: 'number', admin: { description: 'In cents.' } },
    { name: 'currency', type: 'text' },
    {
      name: 'status',
      type: 'select',
      required: true,
      options: ['pending', 'succeeded', 'failed'],
      admin: { description: 'pending: a delayed payment method has not settled yet.' },
    },
    { name: 'refundedAmount', type: 'number', defaultValue: 0, admin: { description: 'In cents.' } },
    {
      name: 'disputeStatus',
      type: 'select',
      options: ['none', 'open', 'won', 'lost'],
      defaultValue: 'none',
    },
    { name: 'grantedAt', type: 'date' },
    { name: 'revokedAt', type: 'date' },
  ],
}

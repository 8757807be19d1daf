import type { CollectionConfig } from 'payload'

import { customerRowsAccess } from '../src/access/customer-rows'

/** Every payment, one row per processor invoice (recurring) or payment intent (one-time). */
export const PaymentHistory: CollectionConfig = {
  slug: 'payment_history',
  admin: {
    useAsTitle: 'processorPaymentId',
    defaultColumns: ['processorPaymentId', 'user', 'amount', 'currency', 'paymentType', 'status', 'paidAt'],
    group: 'Billing',
  },
  access: customerRowsAccess(),
  fields: [
    { name: 'user', type: 'relationship', relationTo: 'users', index: true },
    { name: 'email', type: 'email', index: true },
    {
      name: 'processorPaymentId',
      type: 'text',
      required: true,
      unique: true,
      admin: { description: 'The invoice id (recurring) or the payment intent id (one-time).' },
    },
    { name: 'subscription', type: 'relationship', relationTo: 'user_subscriptions' },
    { name: 'amount', type: 'number', required: true, admin: { description: 'In cents.' } },
    { name: 'currency', type: 'text', required: true },
    { name: 'paymentType', type: 'select', required: true, options: ['recurring', 'one_time'] },
    { name: 'status', type: 'select', required: true, options: ['succeeded', 'failed'] },
    { name: 'refundedAmount', type: 'number', defaultValue: 0, admin: { description: 'In cents: how much of it was refunded.' } },
    {
      name: 'disputeStatus',
      type: 'select',
      options: ['none', 'open', 'won', 'lost'],
      defaultValue: 'none',
      admin: { description: 'A chargeback on its charge.' },
    },
    { name: 'invoiceUrl', type: 'text' },
    { name: 'paidAt', type: 'date' },
  ],
}

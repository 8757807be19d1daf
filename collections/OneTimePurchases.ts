import type { CollectionConfig } from 'payload'

import { customerRowsAccess } from '../src/access/customer-rows'
import { disputeOptions, GROUPS, labelled } from './options'

/** Lifetime purchases, one row per processor payment intent, written only by the webhook. */
export const OneTimePurchases: CollectionConfig = {
  slug: 'one_time_purchases',
  labels: { singular: 'One-time purchase', plural: 'One-time purchases' },
  admin: {
    useAsTitle: 'processorPaymentIntentId',
    defaultColumns: [
      'processorPaymentIntentId',
      'email',
      'user',
      'plan',
      'amount',
      'currency',
      'status',
      'disputeStatus',
      'grantedAt',
    ],
    group: GROUPS.sales,
    description:
      "Lifetime plans bought with one payment. Written by the payment processor's webhook; refunds and chargebacks show here.",
  },
  access: customerRowsAccess(),
  fields: [
    { name: 'user', label: 'Customer', type: 'relationship', relationTo: 'users', index: true },
    { name: 'email', label: 'Checkout email', type: 'email', index: true },
    { name: 'plan', type: 'relationship', relationTo: 'plans' },
    { name: 'processorPaymentIntentId', label: 'Payment ID (processor)', type: 'text', required: true, unique: true },
    { name: 'processorCheckoutSessionId', label: 'Checkout session ID (processor)', type: 'text', unique: true },
    { name: 'processorCustomerId', label: 'Customer ID (processor)', type: 'text', index: true },
    { name: 'processorChargeId', label: 'Charge ID (processor)', type: 'text', index: true },
    { name: 'processorPriceId', label: 'Price ID (processor)', type: 'text' },
    {
      name: 'quantity',
      label: 'Seats bought',
      type: 'number',
      defaultValue: 1,
      min: 1,
      admin: { description: "The checkout's quantity: how many people the license covers." },
    },
    {
      name: 'amount',
      label: 'Amount (cents)',
      type: 'number',
      admin: { description: "In the currency's smallest unit: 29900 usd is $299.00." },
    },
    {
      name: 'taxAmount',
      label: 'Tax (cents)',
      type: 'number',
      admin: {
        description:
          "Tax included in the amount, from the checkout. Empty until the checkout's event arrives. An upgrade credits the amount before tax.",
      },
    },
    { name: 'currency', type: 'text', admin: { description: 'Lowercase ISO code, such as usd or eur.' } },
    {
      name: 'status',
      type: 'select',
      required: true,
      options: labelled(['pending', 'succeeded', 'failed'], {
        pending: 'Pending (payment not settled yet)',
        succeeded: 'Paid',
        failed: 'Failed',
      }),
      admin: { description: 'Pending: a delayed payment method (such as a bank debit) has not settled yet.' },
    },
    {
      name: 'refundedAmount',
      label: 'Refunded (cents)',
      type: 'number',
      defaultValue: 0,
      admin: { description: 'How much of the amount was refunded, in the same unit.' },
    },
    {
      name: 'disputeStatus',
      label: 'Chargeback',
      type: 'select',
      options: disputeOptions,
      defaultValue: 'none',
      admin: { description: 'Open suspends the license; lost revokes it.' },
    },
    { name: 'grantedAt', label: 'License granted', type: 'date' },
    { name: 'revokedAt', label: 'License revoked', type: 'date' },
  ],
}

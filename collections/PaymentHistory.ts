import type { CollectionConfig } from 'payload'

import { customerRowsAccess } from '../src/access/customer-rows'
import { disputeOptions, GROUPS, labelled } from './options'

/**
 * Every payment, one row per processor invoice (recurring) or payment intent (one-time; its invoice, when
 * it has one, completes the same row).
 */
export const PaymentHistory: CollectionConfig = {
  slug: 'payment_history',
  labels: { singular: 'Payment', plural: 'Payments' },
  admin: {
    useAsTitle: 'processorPaymentId',
    defaultColumns: [
      'processorPaymentId',
      'user',
      'email',
      'plan',
      'amount',
      'taxAmount',
      'currency',
      'status',
      'invoiceNumber',
      'paidAt',
    ],
    group: GROUPS.sales,
    description: 'Every payment, one-time and recurring, as the payment processor reported it.',
  },
  access: customerRowsAccess(),
  fields: [
    { name: 'user', label: 'Customer', type: 'relationship', relationTo: 'users', index: true },
    { name: 'email', label: 'Checkout email', type: 'email', index: true },
    {
      name: 'processorPaymentId',
      label: 'Payment ID (processor)',
      type: 'text',
      required: true,
      unique: true,
      admin: { description: 'The invoice id (recurring) or the payment intent id (one-time).' },
    },
    { name: 'subscription', type: 'relationship', relationTo: 'user_subscriptions' },
    {
      name: 'amount',
      label: 'Amount (cents)',
      type: 'number',
      required: true,
      admin: { description: "In the currency's smallest unit: 29900 usd is $299.00." },
    },
    {
      name: 'currency',
      type: 'text',
      required: true,
      admin: { description: 'Lowercase ISO code, such as usd or eur.' },
    },
    {
      name: 'paymentType',
      label: 'Type',
      type: 'select',
      required: true,
      options: labelled(['recurring', 'one_time'], { recurring: 'Subscription payment', one_time: 'One-time payment' }),
    },
    {
      name: 'status',
      type: 'select',
      required: true,
      options: labelled(['succeeded', 'failed'], { succeeded: 'Paid', failed: 'Failed' }),
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
      admin: { description: 'A chargeback on its charge.' },
    },
    { name: 'plan', type: 'relationship', relationTo: 'plans', admin: { description: 'What the payment bought.' } },
    {
      name: 'taxAmount',
      label: 'Tax (cents)',
      type: 'number',
      admin: { description: 'Tax included in the amount, from the invoice; empty when the payment has no invoice.' },
    },
    {
      name: 'invoiceUrl',
      label: 'Invoice or receipt',
      type: 'text',
      admin: {
        description:
          "The processor's hosted invoice page, or the receipt of a one-time payment made without an invoice.",
      },
    },
    { name: 'invoicePdf', label: 'Invoice PDF', type: 'text' },
    { name: 'invoiceNumber', label: 'Invoice number', type: 'text', index: true },
    { name: 'processorInvoiceId', label: 'Invoice ID (processor)', type: 'text', index: true },
    { name: 'paidAt', label: 'Paid at', type: 'date' },
  ],
}

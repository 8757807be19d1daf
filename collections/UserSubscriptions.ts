import type { CollectionConfig } from 'payload'

import { customerRowsAccess } from '../src/access/customer-rows'
import { SUBSCRIPTION_STATUSES } from '../src/licensing/subscription-statuses'
import { disputeOptions, GROUPS, labelled } from './options'

/** The processor's subscriptions, one row each, written only by the webhook. */
export const UserSubscriptions: CollectionConfig = {
  slug: 'user_subscriptions',
  labels: { singular: 'Subscription', plural: 'Subscriptions' },
  admin: {
    useAsTitle: 'processorSubscriptionId',
    defaultColumns: [
      'processorSubscriptionId',
      'user',
      'email',
      'plan',
      'status',
      'billingCycle',
      'currentPeriodEnd',
      'cancelAtPeriodEnd',
    ],
    group: GROUPS.sales,
    description:
      "Monthly and yearly plans, as the payment processor reports them. Customers change or cancel them in the processor's billing portal.",
  },
  access: customerRowsAccess(),
  fields: [
    { name: 'user', label: 'Customer', type: 'relationship', relationTo: 'users', index: true },
    {
      name: 'email',
      label: 'Checkout email',
      type: 'email',
      index: true,
      admin: { description: 'Checkout email; links an anonymous purchase to an account.' },
    },
    { name: 'plan', type: 'relationship', relationTo: 'plans' },
    { name: 'processorCustomerId', label: 'Customer ID (processor)', type: 'text', index: true },
    {
      name: 'processorSubscriptionId',
      label: 'Subscription ID (processor)',
      type: 'text',
      required: true,
      unique: true,
    },
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
      name: 'status',
      type: 'select',
      required: true,
      options: labelled(SUBSCRIPTION_STATUSES, {
        active: 'Active',
        trialing: 'Trial',
        past_due: 'Past due (payment failed, retrying)',
        canceled: 'Canceled',
        unpaid: 'Unpaid (retries exhausted)',
        incomplete: 'Incomplete (first payment pending)',
        incomplete_expired: 'Incomplete, expired (first payment never made)',
        paused: 'Paused',
      }),
    },
    {
      name: 'billingCycle',
      label: 'Billed',
      type: 'select',
      options: labelled(['monthly', 'yearly'], { monthly: 'Monthly', yearly: 'Yearly' }),
    },
    { name: 'currentPeriodEnd', label: 'Paid until', type: 'date' },
    { name: 'cancelAtPeriodEnd', label: 'Cancels at period end', type: 'checkbox', defaultValue: false },
    { name: 'canceledAt', label: 'Canceled', type: 'date' },
    {
      name: 'fullyRefunded',
      label: 'Fully refunded',
      type: 'checkbox',
      defaultValue: false,
      admin: {
        description: 'Its latest invoice was refunded in full. Access still follows the status: cancel to end it.',
      },
    },
    {
      name: 'disputeStatus',
      label: 'Chargeback',
      type: 'select',
      options: disputeOptions,
      defaultValue: 'none',
      admin: {
        description: 'The worst chargeback on any of its invoices: open suspends the license, lost revokes it.',
      },
    },
    {
      name: 'processorSnapshotAt',
      label: 'Processor state as of',
      type: 'date',
      admin: {
        readOnly: true,
        date: { pickerAppearance: 'dayAndTime' },
        description: 'When the processor state recorded here was read; an older read never overwrites it.',
      },
    },
  ],
}

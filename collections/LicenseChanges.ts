import type { CollectionConfig } from 'payload'

import { customerRowsAccess } from '../src/access/customer-rows'
import { LICENSE_CHANGE_KINDS, LICENSE_CHANGE_STATUSES } from '../src/billing/license-change-kinds'
import { disputeOptions, GROUPS, labelled } from './options'

/**
 * Paid changes to an existing license: an upgrade to a higher plan (paying the difference) or a
 * renewal of its updates. One row per processor payment, written only by the webhook (and by the
 * upgrade endpoint when a credit covers the whole price), in any order of events.
 */
export const LicenseChanges: CollectionConfig = {
  slug: 'license_changes',
  labels: { singular: 'Upgrade or renewal', plural: 'Upgrades and renewals' },
  graphQL: { singularName: 'LicenseChange', pluralName: 'LicenseChanges' },
  admin: {
    useAsTitle: 'processorPaymentIntentId',
    defaultColumns: ['kind', 'license', 'user', 'fromPlan', 'toPlan', 'amount', 'currency', 'status', 'createdAt'],
    group: GROUPS.sales,
    description:
      'Upgrades that paid the difference, and renewals of a license\'s updates. "Refused" payments were refunded in full by the service (the reason says why).',
  },
  access: customerRowsAccess(),
  fields: [
    {
      name: 'kind',
      type: 'select',
      required: true,
      options: labelled(LICENSE_CHANGE_KINDS, { upgrade: 'Upgrade to a higher plan', renewal: 'Renewal of updates' }),
    },
    {
      name: 'license',
      type: 'relationship',
      relationTo: 'licenses',
      index: true,
      admin: { description: 'Empty when the payment named a license that does not exist (refused).' },
    },
    { name: 'user', label: 'Customer', type: 'relationship', relationTo: 'users', index: true },
    { name: 'fromPlan', label: 'From plan', type: 'relationship', relationTo: 'plans' },
    { name: 'toPlan', label: 'To plan', type: 'relationship', relationTo: 'plans' },
    {
      name: 'status',
      type: 'select',
      required: true,
      index: true,
      options: labelled(LICENSE_CHANGE_STATUSES, {
        pending: 'Pending (payment not settled yet)',
        applied: 'Applied to the license',
        refused: 'Refused and refunded',
        reversed: 'Reversed (refunded or chargeback lost)',
        failed: 'Payment failed',
      }),
    },
    {
      name: 'reason',
      label: 'Why refused',
      type: 'text',
      admin: {
        condition: (data) => Boolean(data?.reason),
        description:
          'already_upgraded, license_not_active, not_the_owner, credit_changed, nothing_to_renew, plan_changed.',
      },
    },
    { name: 'processorPaymentIntentId', label: 'Payment ID (processor)', type: 'text', unique: true },
    { name: 'processorCheckoutSessionId', label: 'Checkout session ID (processor)', type: 'text', unique: true },
    { name: 'processorChargeId', label: 'Charge ID (processor)', type: 'text', index: true },
    {
      name: 'amount',
      label: 'Paid (cents)',
      type: 'number',
      admin: { description: "In the currency's smallest unit." },
    },
    {
      name: 'taxAmount',
      label: 'Tax (cents)',
      type: 'number',
      admin: {
        description: "Tax included in what was paid, from the checkout. Empty until the checkout's event arrives.",
      },
    },
    {
      name: 'credit',
      label: 'Credit (cents)',
      type: 'number',
      admin: { description: "Upgrades: what the license had already paid, taken off the new plan's price." },
    },
    { name: 'currency', type: 'text' },
    { name: 'refundedAmount', label: 'Refunded (cents)', type: 'number', defaultValue: 0 },
    { name: 'disputeStatus', label: 'Chargeback', type: 'select', options: disputeOptions, defaultValue: 'none' },
    {
      type: 'row',
      fields: [
        {
          name: 'licenseBefore',
          label: 'License before',
          type: 'json',
          admin: {
            description:
              'Plan and update window before the change: restored if the payment is refunded in full or a chargeback is lost.',
          },
        },
        { name: 'licenseAfter', label: 'License after', type: 'json', admin: { description: 'What the change set.' } },
      ],
    },
    { name: 'appliedAt', label: 'Applied', type: 'date' },
    { name: 'reversedAt', label: 'Reversed', type: 'date' },
    { name: 'refundRequestedAt', label: 'Refund sent to the processor', type: 'date' },
    { name: 'emailSentAt', label: 'Email sent', type: 'date' },
  ],
}

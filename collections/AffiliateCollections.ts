import type { CollectionBeforeChangeHook, CollectionConfig } from 'payload'

import { admins, nobody, staff, staffReadServiceWritten } from '../src/access/roles'
import { AFFILIATE_STATUSES, COMMISSION_KINDS, COMMISSION_STATUSES } from '../src/affiliates/states'
import type { Affiliate } from '../src/payload-types'
import { GROUPS, labelled } from './options'

/** The account, the code (links already shared use it) and the first approval stay as they were. */
const keepIdentity: CollectionBeforeChangeHook<Affiliate> = ({ data, originalDoc, operation }) =>
  operation === 'update' && originalDoc
    ? { ...data, user: originalDoc.user, code: originalDoc.code, approvedAt: originalDoc.approvedAt }
    : data

/**
 * One row per customer who applied to the affiliate program (docs/AFFILIATES.md). Customers apply through
 * POST /api/affiliates; admins approve, disable and set the rate here.
 */
export const Affiliates: CollectionConfig = {
  slug: 'affiliates',
  labels: { singular: 'Affiliate', plural: 'Affiliates' },
  admin: {
    useAsTitle: 'code',
    listSearchableFields: ['code', 'payoutEmail'],
    defaultColumns: ['code', 'user', 'status', 'rateBps', 'payoutEmail', 'approvedAt'],
    group: GROUPS.sales,
    description:
      'People who recommend the kit with their own link. Approve an application by setting its status to Active; Disabled stops new commissions. Record a payout from the affiliate’s page.',
    components: { edit: { beforeDocumentControls: ['/app/(payload)/_components/RecordPayout#RecordPayout'] } },
  },
  // Admins approve, disable and set rates; support reads; nobody creates here (customers apply through the endpoint).
  access: { read: staff, create: nobody, update: admins, delete: nobody },
  hooks: { beforeChange: [keepIdentity] },
  fields: [
    {
      name: 'user',
      label: 'Customer',
      type: 'relationship',
      relationTo: 'users',
      required: true,
      unique: true,
      admin: { readOnly: true },
    },
    {
      name: 'code',
      type: 'text',
      required: true,
      unique: true,
      admin: {
        readOnly: true,
        description: 'Their link is <site>/?via=<code>. It cannot be changed: links already shared use it.',
      },
    },
    {
      name: 'status',
      type: 'select',
      required: true,
      defaultValue: 'pending',
      options: labelled(AFFILIATE_STATUSES, {
        pending: 'Applied: waiting for approval',
        active: 'Active',
        disabled: 'Disabled',
      }),
    },
    {
      name: 'rateBps',
      label: 'Commission (basis points)',
      type: 'number',
      required: true,
      min: 0,
      max: 10_000,
      admin: { description: 'Of each sale net of tax: 3000 is 30%.' },
    },
    { name: 'payoutEmail', label: 'Payout email', type: 'email', required: true },
    { name: 'approvedAt', label: 'Approved', type: 'date', admin: { readOnly: true } },
    // When the approval email was queued: it goes once, however often the status changes.
    { name: 'approvalEmailedAt', type: 'date', hidden: true },
  ],
}

/** One visit through an affiliate's link, per visitor and day; no address is kept. */
export const AffiliateClicks: CollectionConfig = {
  slug: 'affiliate_clicks',
  labels: { singular: 'Affiliate visit', plural: 'Affiliate visits' },
  admin: { useAsTitle: 'day', defaultColumns: ['affiliate', 'day', 'createdAt'], group: GROUPS.sales },
  access: staffReadServiceWritten,
  indexes: [{ fields: ['affiliate', 'visitorKey'], unique: true }],
  fields: [
    { name: 'affiliate', type: 'relationship', relationTo: 'affiliates', required: true, index: true },
    // HMAC of (day, address block, code): one visitor counts once a day, and the address cannot be read back.
    { name: 'visitorKey', type: 'text', required: true, hidden: true },
    { name: 'day', type: 'text', required: true },
  ],
}

/**
 * A sale an affiliate's link brought: the processor's payment intent (a one-time purchase) or
 * subscription whose checkout carried the affiliate's code. Its payments earn the commissions.
 */
export const AffiliateReferrals: CollectionConfig = {
  slug: 'affiliate_referrals',
  labels: { singular: 'Referred sale', plural: 'Referred sales' },
  admin: {
    useAsTitle: 'processorRef',
    defaultColumns: ['affiliate', 'kind', 'processorRef', 'user', 'createdAt'],
    group: GROUPS.sales,
    description: 'Purchases and subscriptions whose checkout started from an affiliate’s link.',
  },
  access: staffReadServiceWritten,
  fields: [
    { name: 'affiliate', type: 'relationship', relationTo: 'affiliates', required: true, index: true },
    {
      name: 'processorRef',
      label: 'Payment or subscription ID (processor)',
      type: 'text',
      required: true,
      unique: true,
    },
    {
      name: 'kind',
      type: 'select',
      required: true,
      options: [
        { label: 'One-time purchase', value: 'purchase' },
        { label: 'Subscription', value: 'subscription' },
      ],
    },
    { name: 'click', type: 'relationship', relationTo: 'affiliate_clicks' },
    { name: 'user', label: 'Buyer', type: 'relationship', relationTo: 'users' },
    { name: 'checkoutSessionId', label: 'Checkout ID (processor)', type: 'text' },
  ],
}

/** A commission earned on one payment, or an adjustment of one already paid out. */
export const AffiliateCommissions: CollectionConfig = {
  slug: 'affiliate_commissions',
  labels: { singular: 'Affiliate commission', plural: 'Affiliate commissions' },
  admin: {
    useAsTitle: 'sourceKey',
    defaultColumns: ['affiliate', 'kind', 'amount', 'currency', 'status', 'availableAt', 'payout'],
    group: GROUPS.sales,
    description:
      'What each attributed payment earns its affiliate. Pending until the hold period ends; a refund scales it, a full refund or a lost chargeback voids it, an open chargeback holds it. After a payout, a refund becomes a negative adjustment.',
  },
  access: staffReadServiceWritten,
  fields: [
    { name: 'affiliate', type: 'relationship', relationTo: 'affiliates', required: true, index: true },
    {
      name: 'sourceKey',
      label: 'Source',
      type: 'text',
      required: true,
      unique: true,
      admin: { description: 'payment:<id> for a commission, adjustment:<payment id>:<n> for an adjustment.' },
    },
    { name: 'payment', type: 'relationship', relationTo: 'payment_history', required: true, index: true },
    {
      name: 'kind',
      type: 'select',
      required: true,
      options: labelled(COMMISSION_KINDS, { commission: 'Commission', adjustment: 'Adjustment after a refund' }),
    },
    { name: 'basis', label: 'Sale net of tax (cents)', type: 'number' },
    { name: 'rateBps', label: 'Rate (basis points)', type: 'number' },
    { name: 'amount', label: 'Amount (cents)', type: 'number', required: true },
    { name: 'currency', type: 'text', required: true },
    {
      name: 'status',
      type: 'select',
      required: true,
      index: true,
      options: labelled(COMMISSION_STATUSES, {
        pending: 'Pending (available after the hold)',
        held: 'Held: chargeback open',
        void: 'Void',
        paid: 'Paid out',
      }),
    },
    { name: 'availableAt', label: 'Available from', type: 'date' },
    { name: 'payout', type: 'relationship', relationTo: 'affiliate_payouts', index: true },
  ],
}

/** Money paid to an affiliate outside the service, as an admin recorded it. */
export const AffiliatePayouts: CollectionConfig = {
  slug: 'affiliate_payouts',
  labels: { singular: 'Affiliate payout', plural: 'Affiliate payouts' },
  admin: {
    useAsTitle: 'reference',
    defaultColumns: ['affiliate', 'amount', 'currency', 'commissions', 'recordedBy', 'createdAt'],
    group: GROUPS.sales,
    description:
      'Payouts recorded with Record payout on an affiliate’s page, one per currency. The money itself moves outside the service.',
  },
  access: staffReadServiceWritten,
  fields: [
    { name: 'affiliate', type: 'relationship', relationTo: 'affiliates', required: true, index: true },
    { name: 'reference', type: 'text', required: true, unique: true },
    { name: 'currency', type: 'text', required: true },
    { name: 'amount', label: 'Amount (cents)', type: 'number', required: true },
    { name: 'commissions', label: 'Commissions covered', type: 'number', required: true },
    { name: 'payoutEmail', label: 'Paid to', type: 'email' },
    { name: 'reason', type: 'text' },
    { name: 'recordedBy', label: 'Recorded by', type: 'relationship', relationTo: 'users' },
  ],
}

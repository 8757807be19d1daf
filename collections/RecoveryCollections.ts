import type { CollectionConfig } from 'payload'

import { staffReadServiceWritten } from '../src/access/roles'
import { RECOVERY_REASONS, RECOVERY_STATUSES } from '../src/recovery/states'
import { GROUPS, labelled } from './options'

/**
 * One row per checkout the processor expired (docs/CHECKOUT_RECOVERY.md): who left it, whether the
 * recovery email went out (or why not), and whether the buyer came back and paid.
 */
export const CheckoutRecoveries: CollectionConfig = {
  slug: 'checkout_recoveries',
  labels: { singular: 'Abandoned checkout', plural: 'Abandoned checkouts' },
  admin: {
    useAsTitle: 'checkoutSessionId',
    listSearchableFields: ['email', 'checkoutSessionId'],
    defaultColumns: ['email', 'plan', 'status', 'reason', 'expiredAt', 'emailedAt', 'recoveredAt'],
    group: GROUPS.sales,
    description:
      'Checkouts the buyer left unpaid until the processor closed them. When the buyer agreed to promotional email, one recovery email follows (an hour later by default); Recovered means they came back through its link and paid. Search by email or checkout ID.',
  },
  access: staffReadServiceWritten,
  fields: [
    {
      name: 'checkoutSessionId',
      label: 'Checkout ID (processor)',
      type: 'text',
      required: true,
      unique: true,
    },
    { name: 'user', label: 'Customer', type: 'relationship', relationTo: 'users', index: true },
    {
      name: 'email',
      label: 'Email',
      type: 'email',
      admin: { description: 'Known only when the buyer was signed in, or typed it and agreed to promotional email.' },
    },
    // SHA-256 of the lowercased address: the per-address rules (unsubscribed, emailed lately) look it up.
    { name: 'emailHash', type: 'text', index: true, hidden: true },
    { name: 'plan', type: 'text', admin: { description: 'The plan the checkout was for.' } },
    { name: 'amount', type: 'number', admin: { description: 'The checkout’s total, in cents.' } },
    { name: 'currency', type: 'text' },
    { name: 'startedAt', label: 'Checkout opened', type: 'date' },
    { name: 'expiredAt', label: 'Expired', type: 'date' },
    {
      name: 'status',
      type: 'select',
      required: true,
      index: true,
      options: labelled(RECOVERY_STATUSES, {
        waiting: 'Email waiting to be sent',
        emailed: 'Recovery email sent',
        not_sent: 'No email sent',
        recovered: 'Recovered: paid',
      }),
    },
    {
      name: 'reason',
      label: 'Why no email',
      type: 'select',
      options: labelled(RECOVERY_REASONS, {
        recovery_off: 'Checkout recovery is turned off',
        no_recovery_link: 'The processor gave no recovery link',
        no_consent: 'The buyer did not agree to promotional email',
        no_email: 'No email address is known',
        paid_since: 'The buyer paid since',
        unsubscribed: 'The address unsubscribed',
        recently_emailed: 'The address got a recovery email lately',
        link_expired: 'The recovery link had expired',
      }),
    },
    { name: 'emailDueAt', label: 'Email due', type: 'date' },
    { name: 'emailedAt', label: 'Email sent', type: 'date', index: true },
    // The processor's recovery URL, sealed (AES-256-GCM): it opens the buyer's checkout, with their address.
    { name: 'recoveryUrl', type: 'text', hidden: true },
    { name: 'recoveryExpiresAt', label: 'Recovery link expires', type: 'date' },
    { name: 'recoveredSessionId', label: 'Paid checkout ID (processor)', type: 'text' },
    { name: 'recoveredAt', label: 'Recovered', type: 'date' },
    {
      name: 'recoveredAmount',
      label: 'Recovered amount',
      type: 'number',
      admin: { description: 'What the recovered checkout paid, in cents.' },
    },
  ],
}

/**
 * Addresses that asked for no more recovery email (the one-click unsubscribe, RFC 8058). Only the
 * SHA-256 of the lowercased address is kept, so the list holds no address.
 */
export const EmailUnsubscribes: CollectionConfig = {
  slug: 'email_unsubscribes',
  labels: { singular: 'Email unsubscribe', plural: 'Email unsubscribes' },
  admin: {
    useAsTitle: 'emailHash',
    defaultColumns: ['emailHash', 'createdAt'],
    group: GROUPS.customers,
    description:
      'Addresses that unsubscribed from recovery emails, as a fingerprint (SHA-256): the address itself is not kept. Account emails (receipts, licenses, sign-in links) still go out.',
  },
  access: staffReadServiceWritten,
  fields: [{ name: 'emailHash', label: 'Address fingerprint (SHA-256)', type: 'text', required: true, unique: true }],
}

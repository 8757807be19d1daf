import type { CollectionConfig, FieldAccess } from 'payload'

import { or, ownRows } from '../src/access/compose'
import { admins, adminsField, signedIn, staff, staffField } from '../src/access/roles'
import { GROUPS, labelled } from './options'
import { fileSupportRequest, trimText } from './SupportRequests.hooks'

/** Set by the service only (hooks, jobs): no one writes it through REST, GraphQL or the admin. */
export const serviceOnly: FieldAccess = () => false

const SUPPORT_STATUSES = ['open', 'answered', 'closed'] as const
/** In this order: the queue sorts on it, high first. */
const SUPPORT_PRIORITIES = ['high', 'normal'] as const

/**
 * Support requests (feature key `support` makes them high priority). Any signed-in customer files
 * one and reads their own; support staff work the queue (high priority first, then the oldest), set
 * the status and answer in the thread below, and each answer is emailed to the customer.
 */
export const SupportRequests: CollectionConfig = {
  slug: 'support_requests',
  graphQL: { singularName: 'SupportRequest', pluralName: 'SupportRequests' },
  labels: { singular: 'Support request', plural: 'Support requests' },
  admin: {
    useAsTitle: 'subject',
    defaultColumns: ['subject', 'priority', 'status', 'user', 'createdAt'],
    listSearchableFields: ['subject'],
    group: GROUPS.support,
    description:
      'The queue: high priority first, then the oldest. Open a request and add a reply under "Replies" to answer it; the customer gets it by email.',
  },
  defaultSort: ['priority', 'createdAt'],
  access: { read: or(staff, ownRows('user')), create: signedIn, update: staff, delete: admins },
  hooks: { beforeValidate: [trimText(['subject', 'message'], ['subject'])], beforeChange: [fileSupportRequest] },
  fields: [
    { name: 'subject', type: 'text', required: true, maxLength: 200, access: { update: adminsField } },
    {
      name: 'message',
      type: 'textarea',
      required: true,
      maxLength: 5000,
      access: { update: adminsField },
      admin: { readOnly: true },
    },
    {
      name: 'priority',
      type: 'select',
      required: true,
      defaultValue: 'normal',
      options: labelled(SUPPORT_PRIORITIES, { high: 'High (priority support)', normal: 'Normal' }),
      index: true,
      access: { create: serviceOnly, update: staffField },
      admin: { position: 'sidebar', description: "From the customer's plan when filed: high with priority support." },
    },
    {
      name: 'status',
      type: 'select',
      required: true,
      defaultValue: 'open',
      options: labelled(SUPPORT_STATUSES, {
        open: 'Open (waiting for us)',
        answered: 'Answered (waiting for the customer)',
        closed: 'Closed',
      }),
      index: true,
      access: { create: serviceOnly, update: staffField },
      admin: { position: 'sidebar' },
    },
    {
      name: 'user',
      label: 'Customer',
      type: 'relationship',
      relationTo: 'users',
      required: true,
      index: true,
      access: { create: serviceOnly, update: serviceOnly },
      admin: { position: 'sidebar', readOnly: true },
    },
    {
      name: 'replies',
      type: 'join',
      collection: 'support_replies',
      on: 'request',
      defaultSort: 'createdAt',
      defaultLimit: 50,
      admin: { defaultColumns: ['body', 'fromStaff', 'author', 'emailedAt', 'createdAt'] },
    },
  ],
}

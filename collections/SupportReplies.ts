import type { CollectionConfig } from 'payload'

import { or, ownRows } from '../src/access/compose'
import { admins, signedIn, staff } from '../src/access/roles'
import { GROUPS } from './options'
import { afterSupportReply, checkSupportReply } from './SupportReplies.hooks'
import { trimText } from './SupportRequests.hooks'
import { serviceOnly } from './SupportRequests'

/**
 * The thread of a support request: staff answers (each emailed through the jobs queue) and the
 * customer's follow-ups. A customer reads the replies on their own requests only.
 */
export const SupportReplies: CollectionConfig = {
  slug: 'support_replies',
  graphQL: { singularName: 'SupportReply', pluralName: 'SupportReplies' },
  labels: { singular: 'Support reply', plural: 'Support replies' },
  admin: {
    useAsTitle: 'body',
    defaultColumns: ['request', 'body', 'fromStaff', 'author', 'emailedAt', 'createdAt'],
    group: GROUPS.support,
    description:
      'Answer a request from the request itself (its "Replies"); each staff reply is emailed to the customer.',
  },
  defaultSort: '-createdAt',
  access: { read: or(staff, ownRows('customer')), create: signedIn, update: admins, delete: admins },
  hooks: { beforeValidate: [trimText(['body'])], beforeChange: [checkSupportReply], afterChange: [afterSupportReply] },
  fields: [
    {
      name: 'request',
      label: 'Support request',
      type: 'relationship',
      relationTo: 'support_requests',
      required: true,
      index: true,
      access: { update: serviceOnly },
    },
    { name: 'body', label: 'Reply', type: 'textarea', required: true, maxLength: 5000 },
    {
      name: 'fromStaff',
      label: 'From staff',
      type: 'checkbox',
      defaultValue: false,
      access: { create: serviceOnly, update: serviceOnly },
      admin: { position: 'sidebar', readOnly: true },
    },
    {
      name: 'author',
      label: 'Written by',
      type: 'relationship',
      relationTo: 'users',
      access: { create: serviceOnly, update: serviceOnly },
      admin: { position: 'sidebar', readOnly: true },
    },
    {
      name: 'customer',
      type: 'relationship',
      relationTo: 'users',
      index: true,
      access: { create: serviceOnly, update: serviceOnly },
      admin: { position: 'sidebar', readOnly: true, description: "The request's customer: who may read this reply." },
    },
    {
      name: 'emailedAt',
      label: 'Emailed',
      type: 'date',
      access: { create: serviceOnly, update: serviceOnly },
      admin: {
        position: 'sidebar',
        readOnly: true,
        description: 'When the reply was emailed to the customer (staff replies only).',
      },
    },
  ],
}

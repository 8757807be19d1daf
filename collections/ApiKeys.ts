import type { Access, CollectionConfig, Where } from 'payload'

import { and, or } from '../src/access/compose'
import { admins, nobody, staff, staffField } from '../src/access/roles'
import { notByApiKey } from '../src/auth/api-keys'
import { GROUPS } from './options'
import { staffActionsField } from './staff-actions'

/** The signed-in customer's keys that still work: revoked rows are history, for staff only. */
const ownLiveKeys: Access = ({ req }) => {
  if (!req.user) return false
  const live: Where = { and: [{ user: { equals: req.user.id } }, { revokedAt: { exists: false } }] }
  return live
}

/**
 * Personal API keys (feature key `api`). Only a SHA-256 of each key is stored, and it is never
 * readable through any API or shown in the admin. Customers create and revoke keys through
 * /api/account/api-keys and read their own live keys' public fields; support reads every key's prefix
 * (the customer view); only admins delete rows. A request authenticated by an API key reads none of it.
 */
export const ApiKeys: CollectionConfig = {
  slug: 'api_keys',
  graphQL: { singularName: 'ApiKey', pluralName: 'ApiKeys' },
  labels: { singular: 'API key', plural: 'API keys' },
  admin: {
    useAsTitle: 'prefix',
    defaultColumns: ['prefix', 'name', 'user', 'lastUsedAt', 'revokedAt'],
    group: GROUPS.customers,
    description:
      "Customers' personal API keys (plans with API access). Open one to revoke it (Support actions, with a reason).",
  },
  access: {
    read: and(notByApiKey, or(staff, ownLiveKeys)),
    create: nobody,
    update: nobody,
    delete: and(notByApiKey, admins),
  },
  fields: [
    staffActionsField(['apiKey.revoke']),
    {
      name: 'name',
      type: 'text',
      required: true,
      minLength: 1,
      maxLength: 60,
      admin: { description: 'What the customer called the key.' },
    },
    {
      name: 'prefix',
      label: 'Key starts with',
      type: 'text',
      required: true,
      index: true,
      admin: { description: 'The start of the key (kit_ and 8 characters), what the customer sees in their list.' },
    },
    {
      name: 'keyHash',
      type: 'text',
      required: true,
      unique: true,
      hidden: true,
      access: { read: () => false, create: () => false, update: () => false },
    },
    {
      name: 'user',
      label: 'Customer',
      type: 'relationship',
      relationTo: 'users',
      required: true,
      index: true,
      access: { read: staffField },
    },
    {
      name: 'lastUsedAt',
      label: 'Last used',
      type: 'date',
      admin: { readOnly: true, description: 'Updated at most once a minute.' },
    },
    {
      name: 'revokedAt',
      label: 'Revoked at',
      type: 'date',
      access: { read: staffField },
      admin: { readOnly: true, description: 'Set when the key was revoked: it opens nothing since.' },
    },
    // Declared here only to keep it from customers: they read id, name, prefix, createdAt and lastUsedAt.
    {
      name: 'updatedAt',
      type: 'date',
      index: true,
      access: { read: staffField },
      admin: { hidden: true, disableBulkEdit: true },
    },
  ],
}

import type { CollectionConfig } from 'payload'

import { or, ownRows } from '../src/access/compose'
import { admins, staff } from '../src/access/roles'

/** Which provider account signs in as which user: one row per (provider, subject). */
export const OAuthIdentities: CollectionConfig = {
  slug: 'oauth_identities',
  admin: { useAsTitle: 'email', group: 'Accounts', defaultColumns: ['provider', 'email', 'user', 'createdAt'] },
  access: { read: or(staff, ownRows('user')), create: () => false, update: () => false, delete: admins },
  indexes: [{ fields: ['provider', 'subject'], unique: true }],
  fields: [
    { name: 'provider', type: 'select', required: true, options: ['github', 'google'] },
    { name: 'subject', type: 'text', required: true, admin: { description: "The provider's stable account id." } },
    { name: 'email', type: 'email' },
    { name: 'user', type: 'relationship', relationTo: 'users', required: true, index: true },
  ],
}

import type { CollectionConfig } from 'payload'

import { or, ownRows } from '../src/access/compose'
import { admins, staff } from '../src/access/roles'
import { GROUPS, labelled } from './options'

/** Which provider account signs in as which user: one row per (provider, subject). */
export const OAuthIdentities: CollectionConfig = {
  slug: 'oauth_identities',
  labels: { singular: 'GitHub or Google sign-in', plural: 'GitHub and Google sign-ins' },
  admin: {
    useAsTitle: 'email',
    group: GROUPS.customers,
    defaultColumns: ['provider', 'email', 'user', 'createdAt'],
    description:
      'Which GitHub or Google account signs in as which user. Created when a customer first signs in with it.',
  },
  access: { read: or(staff, ownRows('user')), create: () => false, update: () => false, delete: admins },
  indexes: [{ fields: ['provider', 'subject'], unique: true }],
  fields: [
    {
      name: 'provider',
      type: 'select',
      required: true,
      options: labelled(['github', 'google'], { github: 'GitHub', google: 'Google' }),
    },
    {
      name: 'subject',
      label: 'Account ID at the provider',
      type: 'text',
      required: true,
      admin: { description: "The provider's stable account id." },
    },
    { name: 'email', type: 'email', admin: { description: 'The email the provider gave at the first sign-in.' } },
    { name: 'user', label: 'Signs in as', type: 'relationship', relationTo: 'users', required: true, index: true },
  ],
}

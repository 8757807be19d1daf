import type { CollectionConfig } from 'payload'

import { admins } from '../src/access/roles'
import { GROUPS, labelled } from './options'

/**
 * Single-use sign-in tokens (magic links, email verification, email changes). Only a SHA-256 of each token is
 * stored; the token itself exists only in the email. Never readable through the API.
 */
export const AuthTokens: CollectionConfig = {
  slug: 'auth_tokens',
  labels: { singular: 'Sign-in token', plural: 'Sign-in tokens' },
  admin: {
    hidden: true,
    group: GROUPS.system,
    useAsTitle: 'email',
    defaultColumns: ['email', 'purpose', 'expiresAt', 'consumedAt'],
  },
  access: { read: () => false, create: () => false, update: () => false, delete: admins },
  indexes: [{ fields: ['email', 'purpose'] }],
  fields: [
    { name: 'tokenHash', type: 'text', required: true, unique: true },
    {
      name: 'purpose',
      type: 'select',
      required: true,
      options: labelled(['magic_link', 'verify_email', 'email_change', 'deletion_cancel', 'discord_state'], {
        magic_link: 'Sign-in link',
        verify_email: 'Email confirmation',
        email_change: 'Email change',
        deletion_cancel: 'Cancel an account deletion',
        discord_state: 'Connecting Discord',
      }),
    },
    { name: 'email', type: 'email', required: true },
    { name: 'user', type: 'relationship', relationTo: 'users' },
    { name: 'next', type: 'text' },
    { name: 'expiresAt', type: 'date', required: true },
    { name: 'consumedAt', type: 'date' },
    { name: 'supersededAt', type: 'date' },
  ],
}

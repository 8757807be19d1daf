import type { CollectionConfig } from 'payload'

import { admins, nobody, staff } from '../src/access/roles'

/**
 * Which account holds which code-host username: one row per username, its key the lower-cased
 * username and unique, so no two accounts ever hold one username (the database decides a race). A
 * claim is taken before the code host is asked and given back once the username is off the code host.
 */
export const RepoUsernames: CollectionConfig = {
  slug: 'repo_usernames',
  admin: { useAsTitle: 'usernameKey', defaultColumns: ['usernameKey', 'user', 'createdAt'], group: 'Delivery' },
  access: { read: staff, create: nobody, update: nobody, delete: admins },
  fields: [
    { name: 'usernameKey', type: 'text', required: true, unique: true, admin: { description: 'The username, lower-cased.' } },
    { name: 'user', type: 'relationship', relationTo: 'users', required: true, index: true },
    {
      name: 'removingSince',
      type: 'date',
      admin: { description: 'Set while the username is being taken off the code host: nobody may write it meanwhile.' },
    },
  ],
}

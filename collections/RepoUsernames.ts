import type { CollectionConfig } from 'payload'

import { admins, nobody, staff } from '../src/access/roles'
import { GROUPS } from './options'

/**
 * Which account holds which code-host username: one row per username, its key the lower-cased
 * username and unique, so no two accounts ever hold one username (the database decides a race). A
 * claim is taken before the code host is asked and given back once the username is off the code host.
 */
export const RepoUsernames: CollectionConfig = {
  slug: 'repo_usernames',
  labels: { singular: 'Claimed username', plural: 'Claimed usernames' },
  admin: {
    useAsTitle: 'usernameKey',
    defaultColumns: ['usernameKey', 'user', 'removingSince', 'createdAt'],
    group: GROUPS.delivery,
    description: 'Which account holds which code-host username, so no two accounts share one. Kept by the service.',
  },
  access: { read: staff, create: nobody, update: nobody, delete: admins },
  fields: [
    {
      name: 'usernameKey',
      label: 'Username',
      type: 'text',
      required: true,
      unique: true,
      admin: { description: 'The username, lower-cased.' },
    },
    { name: 'user', label: 'Held by', type: 'relationship', relationTo: 'users', required: true, index: true },
    {
      name: 'removingSince',
      label: 'Being removed since',
      type: 'date',
      admin: { description: 'Set while the username is being taken off the code host: nobody may write it meanwhile.' },
    },
  ],
}

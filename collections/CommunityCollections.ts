import type { Access, CollectionConfig } from 'payload'

import { or, ownRows } from '../src/access/compose'
import { staff, staffField } from '../src/access/roles'
import { GRANT_STATES } from '../src/community/grant-states'
import { GROUPS, labelled } from './options'

/** Only the service writes these rows (with overrideAccess): nobody, admins included, links or grants through the API. */
const nobody: Access = () => false

const access: NonNullable<CollectionConfig['access']> = {
  read: or(staff, ownRows('user')),
  create: nobody,
  update: nobody,
  delete: nobody,
}

/**
 * One row per customer who ever connected Discord: the Discord account linked now (none after a
 * disconnect), and the bookkeeping of the role sync (docs/COMMUNITY.md).
 */
export const DiscordLinks: CollectionConfig = {
  slug: 'discord_links',
  labels: { singular: 'Discord link', plural: 'Discord links' },
  admin: {
    useAsTitle: 'discordUsername',
    defaultColumns: ['discordUsername', 'user', 'discordUserId', 'linkedAt', 'lastSyncedAt'],
    group: GROUPS.customers,
    description:
      "Customers who connected their Discord account. The roles each one was given are under Discord roles; the customer's page has the Sync community roles action.",
  },
  access,
  fields: [
    { name: 'user', label: 'Customer', type: 'relationship', relationTo: 'users', required: true, unique: true },
    {
      name: 'discordUserId',
      label: 'Discord user ID',
      type: 'text',
      unique: true,
      admin: { description: 'Empty: the customer disconnected Discord.' },
    },
    { name: 'discordUsername', label: 'Discord username', type: 'text' },
    { name: 'linkedAt', label: 'Connected', type: 'date' },
    { name: 'lastSyncedAt', label: 'Last checked on Discord', type: 'date' },
    // Bookkeeping of the sync (src/community/sync.ts): until when one process holds this customer's
    // lease, how many syncs asked while it did (and whether one wanted a check), when a check was queued.
    { name: 'syncLeaseUntil', type: 'date', hidden: true },
    { name: 'syncRequests', type: 'number', hidden: true, defaultValue: 0 },
    { name: 'syncCheckRequested', type: 'checkbox', hidden: true, defaultValue: false },
    { name: 'syncQueuedAt', type: 'date', hidden: true },
  ],
}

/** Each Discord role the service gave (or is giving) a linked account, and where it stands. */
export const CommunityGrants: CollectionConfig = {
  slug: 'community_grants',
  labels: { singular: 'Discord role given', plural: 'Discord roles given' },
  admin: {
    useAsTitle: 'roleId',
    defaultColumns: ['user', 'roleId', 'state', 'grantedAt', 'lastError'],
    group: GROUPS.customers,
    description:
      'Roles the service gave on Discord for a plan. Failed: Discord refused (the bot’s role must sit above the plan’s role), or the customer left the server and must connect again.',
  },
  access,
  indexes: [{ fields: ['user', 'discordUserId', 'roleId'], unique: true }],
  fields: [
    { name: 'user', label: 'Customer', type: 'relationship', relationTo: 'users', required: true, index: true },
    { name: 'discordUserId', label: 'Discord user ID', type: 'text', required: true, index: true },
    { name: 'roleId', label: 'Discord role ID', type: 'text', required: true },
    {
      name: 'state',
      type: 'select',
      required: true,
      options: labelled(GRANT_STATES, {
        pending: 'Being given',
        granted: 'Given',
        failed: 'Failed',
      }),
    },
    { name: 'grantedAt', label: 'Given', type: 'date' },
    { name: 'lastAttemptAt', label: 'Last attempt', type: 'date' },
    // Discord's refusal, for staff: customers see the state.
    { name: 'lastError', label: 'Last error', type: 'text', access: { read: staffField } },
  ],
}

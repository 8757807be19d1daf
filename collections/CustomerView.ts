import type { CollectionBeforeOperationHook, Field, JoinField } from 'payload'

import { isStaffUser, staffField } from '../src/access/roles'

type Join = Pick<JoinField, 'name' | 'label' | 'collection' | 'on' | 'defaultSort'> & { columns: string[] }

/** What support sees of a customer, newest first: every row that points at the user. */
const JOINS: Join[] = [
  {
    name: 'licenses',
    label: 'Licenses',
    collection: 'licenses',
    on: 'user',
    columns: ['key', 'plan', 'status', 'source', 'grantedAt'],
  },
  {
    name: 'oneTimePurchases',
    label: 'One-time purchases',
    collection: 'one_time_purchases',
    on: 'user',
    columns: ['plan', 'amount', 'currency', 'status', 'refundedAmount', 'disputeStatus', 'grantedAt'],
  },
  {
    name: 'subscriptions',
    label: 'Subscriptions',
    collection: 'user_subscriptions',
    on: 'user',
    columns: ['plan', 'status', 'billingCycle', 'currentPeriodEnd', 'cancelAtPeriodEnd', 'disputeStatus'],
  },
  {
    name: 'payments',
    label: 'Payments',
    collection: 'payment_history',
    on: 'user',
    defaultSort: '-paidAt',
    columns: [
      'plan',
      'amount',
      'taxAmount',
      'currency',
      'status',
      'refundedAmount',
      'disputeStatus',
      'invoiceNumber',
      'invoiceUrl',
      'invoicePdf',
      'paidAt',
    ],
  },
  {
    name: 'teamSeats',
    label: "Team seats held (on others' licenses)",
    collection: 'license_seats',
    on: 'member',
    columns: ['license', 'email', 'status', 'claimedAt', 'revokedAt'],
  },
  {
    name: 'downloads',
    label: 'Downloads',
    collection: 'downloads',
    on: 'user',
    columns: ['version', 'license', 'clientAddress', 'createdAt'],
  },
  {
    name: 'templateDownloads',
    label: 'Template downloads',
    collection: 'template_downloads',
    on: 'user',
    columns: ['template', 'license', 'createdAt'],
  },
  {
    name: 'repoAccess',
    label: 'Repository access',
    collection: 'repo_access',
    on: 'user',
    columns: ['username', 'status', 'invitedAt', 'acceptedAt', 'lastError'],
  },
  {
    name: 'discordLink',
    label: 'Discord',
    collection: 'discord_links',
    on: 'user',
    columns: ['discordUsername', 'discordUserId', 'linkedAt', 'lastSyncedAt'],
  },
  {
    name: 'communityGrants',
    label: 'Discord roles given',
    collection: 'community_grants',
    on: 'user',
    columns: ['roleId', 'discordUserId', 'state', 'grantedAt', 'lastError'],
  },
  {
    name: 'supportRequests',
    label: 'Support requests',
    collection: 'support_requests',
    on: 'user',
    columns: ['subject', 'priority', 'status', 'createdAt'],
  },
  // Prefixes only: the key's hash is a hidden field that no API returns.
  {
    name: 'apiKeys',
    label: 'API keys',
    collection: 'api_keys',
    on: 'user',
    columns: ['prefix', 'name', 'createdAt', 'lastUsedAt', 'revokedAt'],
  },
]

/** The names of the customer view's join fields on `users`. */
export const CUSTOMER_JOINS = JOINS.map((join) => join.name)

const joinField = ({ columns, defaultSort, ...join }: Join): JoinField => ({
  ...join,
  type: 'join',
  defaultSort: defaultSort ?? '-createdAt',
  defaultLimit: 10,
  access: { read: staffField },
  admin: { defaultColumns: columns, allowCreate: false },
})

/**
 * The "Customer" tab of a user in the admin: their licenses, purchases, subscriptions, payments,
 * downloads, repository access, Discord link and roles, support requests and API keys, read by staff only.
 */
export const customerViewTab = {
  label: 'Customer',
  description: 'Everything this user bought, downloaded and asked for. Open a row to act on it (revoke, resend, ...).',
  fields: JOINS.map(joinField) as Field[],
}

/**
 * Only staff reading one user get the joins. Everyone else (the user fetched to authenticate each
 * request, /api/users/me, a customer reading themselves) and lists that do not ask for joins read
 * the row alone: the join subqueries are never run for them. The joins' field access hides them too.
 */
export const customerJoinsForStaffOnly: CollectionBeforeOperationHook = ({ args, operation, req }) => {
  if (operation !== 'read') return args
  const read = args as { id?: unknown; joins?: unknown }
  const oneUser = read.id !== undefined && read.id !== null
  if (!isStaffUser(req.user) || (!oneUser && read.joins === undefined)) return { ...args, joins: false }
  return args
}

import type { CollectionConfig } from 'payload'

import { or, ownRows } from '../src/access/compose'
import { admins, adminsField, isStaffUser, ROLES, staff, staffField } from '../src/access/roles'
import { passwordResetEmail } from '../src/email/account-emails'
import { customerJoinsForStaffOnly, customerViewTab } from './CustomerView'
import { GROUPS } from './options'
import { staffActionsField } from './staff-actions'
import {
  assignRoles,
  currentPasswordForNewPassword,
  guardCredentials,
  guardEmailChange,
  hashResetToken,
  limitAttempts,
  notePasswordSet,
} from './Users.hooks'

export type UsersOptions = {
  /** The public address: the host of every emailed link. */
  serverUrl: string
  productName: string
  /** Send the session cookie over HTTPS only (production). */
  secureCookies: boolean
  /** Failed logins before the account is locked, and for how long. */
  maxLoginAttempts: number
  lockTimeMs: number
}

/** The signed-in user's own row. */
const self = ownRows('id')

export const createUsersCollection = (options: UsersOptions): CollectionConfig => ({
  slug: 'users',
  labels: { singular: 'User', plural: 'Users' },
  admin: {
    useAsTitle: 'email',
    defaultColumns: ['email', 'name', 'roles', 'emailVerified', 'deletion.erasedAt', 'createdAt'],
    group: GROUPS.customers,
    description:
      "Customers and staff. Open a customer's page and its Customer tab for everything they bought, downloaded and asked for.",
  },
  auth: {
    maxLoginAttempts: options.maxLoginAttempts,
    lockTime: options.lockTimeMs,
    tokenExpiration: 60 * 60 * 8,
    cookies: { secure: options.secureCookies, sameSite: 'Lax' },
    forgotPassword: {
      expiration: 60 * 60 * 1000,
      // Every reset email, the admin's included, links to our callback on SERVER_URL.
      generateEmailSubject: () => `Reset your password | ${options.productName}`,
      generateEmailHTML: (args) =>
        passwordResetEmail(
          options.productName,
          `${options.serverUrl}/auth/callback?type=recovery&token=${encodeURIComponent(args?.token ?? '')}`,
        ).html,
    },
  },
  access: {
    // Only staff may open the admin UI.
    admin: ({ req }) => isStaffUser(req.user),
    // Public sign-up goes through POST /api/auth/sign-up (no account enumeration); admins create here.
    create: admins,
    read: or(staff, self),
    update: or(admins, self),
    delete: admins,
    unlock: admins,
  },
  hooks: {
    beforeOperation: [limitAttempts, guardCredentials, currentPasswordForNewPassword, customerJoinsForStaffOnly],
    beforeChange: [assignRoles, guardEmailChange, hashResetToken, notePasswordSet],
  },
  fields: [
    {
      type: 'tabs',
      tabs: [{ label: 'Account', fields: [{ name: 'name', type: 'text', maxLength: 120 }] }, customerViewTab],
    },
    {
      name: 'roles',
      type: 'select',
      hasMany: true,
      required: true,
      defaultValue: ['customer'],
      saveToJWT: true,
      options: ROLES.map((role) => ({ label: role[0]!.toUpperCase() + role.slice(1), value: role })),
      access: { create: adminsField, update: adminsField },
      admin: { position: 'sidebar', description: 'Only admins change roles.' },
    },
    {
      name: 'emailVerified',
      label: 'Email verified',
      type: 'checkbox',
      defaultValue: false,
      access: { create: adminsField, update: adminsField },
      admin: {
        position: 'sidebar',
        description:
          'Set when the user proves the address (or an admin vouches for it); required for password sign-in; links purchases made with it to this account.',
      },
    },
    {
      name: 'pendingEmail',
      label: 'New email, not confirmed yet',
      type: 'email',
      access: { create: adminsField, update: adminsField },
      admin: {
        position: 'sidebar',
        readOnly: true,
        description: 'A new address the user asked for; it replaces the email when the link sent to it is opened.',
      },
    },
    {
      name: 'passwordSet',
      label: 'Has a password',
      type: 'checkbox',
      defaultValue: false,
      access: { create: adminsField, update: adminsField },
      admin: {
        position: 'sidebar',
        readOnly: true,
        description:
          'Whether the user chose a password (at sign-up, a change or a reset). Accounts made by GitHub, Google or a sign-in link have none until they set one.',
      },
    },
    {
      name: 'deletion',
      label: 'Account deletion',
      type: 'group',
      access: { create: () => false, update: () => false },
      admin: {
        position: 'sidebar',
        description:
          'A deletion the customer (or an admin) asked for: the account is erased when the grace period ends, unless cancelled. Payments, purchases, subscriptions and invoices are kept.',
      },
      fields: [
        { name: 'requestedAt', label: 'Asked for', type: 'date', admin: { readOnly: true } },
        {
          name: 'requestedBy',
          label: 'Asked by',
          type: 'select',
          options: [
            { label: 'The customer', value: 'customer' },
            { label: 'An admin', value: 'staff' },
          ],
          admin: { readOnly: true },
        },
        {
          name: 'scheduledFor',
          label: 'Erased after',
          type: 'date',
          index: true,
          admin: { readOnly: true, date: { pickerAppearance: 'dayAndTime' } },
        },
        {
          name: 'erasedAt',
          label: 'Erased',
          type: 'date',
          admin: { readOnly: true, description: 'The person is erased: this row only holds the books together.' },
        },
        {
          name: 'completedAt',
          label: 'Erasure finished',
          type: 'date',
          admin: { readOnly: true, description: 'Also deleted at the processor, repository access withdrawn.' },
        },
        {
          name: 'lastError',
          label: 'Why the erasure is waiting',
          type: 'text',
          access: { read: staffField },
          admin: { readOnly: true, description: 'Retried every minute until it succeeds.' },
        },
      ],
    },
    staffActionsField(['user.scheduleDeletion', 'user.syncCommunity']),
    {
      name: 'processorCustomerId',
      label: 'Processor customer ID',
      type: 'text',
      unique: true,
      index: true,
      access: { create: adminsField, update: adminsField },
      admin: { position: 'sidebar', readOnly: true, description: 'Set by the billing webhook.' },
    },
  ],
})

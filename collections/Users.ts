import crypto from 'node:crypto'
import { promisify } from 'node:util'

import type { CollectionBeforeChangeHook, CollectionBeforeOperationHook, CollectionConfig } from 'payload'

import { clientAddress, enforceRateLimit, type LimitedAction } from '../src/auth/rate-limit'
import { passwordResetEmail } from '../src/email/account-emails'

import { or, ownRows } from '../src/access/compose'
import { admins, adminsField, isStaffUser, ROLES, staff } from '../src/access/roles'

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

/**
 * The first user registered through the admin's "create first user" screen becomes an admin;
 * every other new user is a customer unless an admin says otherwise (role field access).
 */
const assignRoles: CollectionBeforeChangeHook = ({ data, operation, req }) => {
  if (operation === 'create' && !req.user && req.pathname?.endsWith('/users/first-register')) {
    return { ...data, roles: ['admin'] }
  }
  if (!Array.isArray(data.roles) || data.roles.length === 0) return { ...data, roles: ['customer'] }
  return data
}

const pbkdf2 = promisify(crypto.pbkdf2)

const LIMITED_OPERATIONS: Partial<Record<string, LimitedAction>> = {
  login: 'sign_in',
  forgotPassword: 'password_reset',
  create: 'sign_up',
}

/**
 * Sign-in, sign-up and reset attempts through Payload's own API (REST, GraphQL, the admin) count
 * against per-address and per-account limits (shared in PostgreSQL). Our own operations (pages,
 * /api/auth/*) call the Local API and enforce the same limits themselves, once per attempt.
 */
const limitAttempts: CollectionBeforeOperationHook = async ({ args, operation, req }) => {
  const action = LIMITED_OPERATIONS[operation]
  const email = (args as { data?: { email?: unknown } }).data?.email
  // Staff creating users in the admin are not signing up.
  if (action && req.payloadAPI !== 'local' && !(operation === 'create' && req.user)) {
    await enforceRateLimit(req.payload, action, { address: clientAddress(req.headers), email: typeof email === 'string' ? email : null })
  }
  if (operation === 'login' && typeof email === 'string') await equaliseUnknownEmail(req.payload, email)
  return args
}

/**
 * Payload refuses an unknown email before hashing anything, which answers measurably faster than a
 * wrong password. Spend one password hash (PBKDF2-SHA256, 25,000 rounds, as Payload) on unknown emails.
 */
const equaliseUnknownEmail = async (payload: Parameters<typeof enforceRateLimit>[0], email: string) => {
  const { totalDocs } = await payload.count({ collection: 'users', where: { email: { equals: email.trim().toLowerCase() } }, overrideAccess: true })
  if (totalDocs === 0) await pbkdf2(email, crypto.randomBytes(32), 25_000, 512, 'sha256')
}

export const createUsersCollection = (options: UsersOptions): CollectionConfig => ({
  slug: 'users',
  admin: {
    useAsTitle: 'email',
    defaultColumns: ['email', 'name', 'roles', 'createdAt'],
    group: 'Accounts',
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
        passwordResetEmail(options.productName, `${options.serverUrl}/auth/callback?type=recovery&token=${encodeURIComponent(args?.token ?? '')}`).html,
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
    beforeOperation: [limitAttempts],
    beforeChange: [assignRoles],
  },
  fields: [
    { name: 'name', type: 'text', maxLength: 120 },
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
      type: 'checkbox',
      defaultValue: false,
      access: { create: adminsField, update: adminsField },
      admin: {
        position: 'sidebar',
        readOnly: true,
        description: 'Set when the user proves the address; links purchases made with it to this account.',
      },
    },
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

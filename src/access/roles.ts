import type { Access, FieldAccess, PayloadRequest } from 'payload'

export const ROLES = ['admin', 'support', 'customer'] as const
export type Role = (typeof ROLES)[number]

type MaybeUser = PayloadRequest['user']

const hasRole = (user: MaybeUser, role: Role): boolean =>
  Boolean(user && user.collection === 'users' && Array.isArray(user.roles) && user.roles.includes(role))

export const isAdminUser = (user: MaybeUser): boolean => hasRole(user, 'admin')

/** Staff: admins and support. */
export const isStaffUser = (user: MaybeUser): boolean => hasRole(user, 'admin') || hasRole(user, 'support')

export const nobody: Access = () => false
export const signedIn: Access = ({ req }) => Boolean(req.user)
export const admins: Access = ({ req }) => isAdminUser(req.user)
export const staff: Access = ({ req }) => isStaffUser(req.user)

/**
 * Rows only the service writes (with overrideAccess) and staff read: customers see none, and nobody,
 * admins included, creates, edits or deletes them through the API.
 */
export const staffReadServiceWritten = { read: staff, create: nobody, update: nobody, delete: nobody }

export const adminsField: FieldAccess = ({ req }) => isAdminUser(req.user)
export const staffField: FieldAccess = ({ req }) => isStaffUser(req.user)

import type { Access, CollectionConfig, GlobalConfig, SanitizedConfig, Where } from 'payload'

import { admins, nobody, signedIn, staff } from './roles'

type CollectionAccess = NonNullable<CollectionConfig['access']>

/** A preference belongs to the signed-in user who saved it (Payload's own rule, kept explicit). */
const ownPreferences: Access = ({ req }) => {
  if (!req.user) return false
  const own: Where = {
    and: [{ 'user.value': { equals: req.user.id } }, { 'user.relationTo': { equals: req.user.collection } }],
  }
  return own
}

/**
 * Payload's own collections, which Payload creates with "any signed-in user may do anything". Jobs
 * carry their inputs (account emails among them) and migrations the schema's history: admins only.
 * Locks are the admin UI's: staff only. Preferences: their owner (a new one is always the creator's,
 * Payload's field hook sets its user).
 */
const PAYLOAD_COLLECTIONS_ACCESS: Record<string, CollectionAccess> = {
  'payload-jobs': { read: admins, create: nobody, update: admins, delete: admins },
  'payload-migrations': { read: admins, create: admins, update: admins, delete: admins },
  'payload-locked-documents': { read: staff, create: staff, update: staff, delete: staff },
  'payload-preferences': { read: ownPreferences, create: signedIn, update: ownPreferences, delete: ownPreferences },
}

/**
 * Payload's own global, added once a task has a schedule: when each schedule last queued its job. Its
 * default lets any signed-in user rewrite it (and so stop the schedules): admins only.
 */
const PAYLOAD_GLOBALS_ACCESS: Record<string, NonNullable<GlobalConfig['access']>> = {
  'payload-jobs-stats': { read: admins, update: admins, readVersions: admins },
}

// PATCH: payload-collections-access
/**
 * Payload adds its collections and globals while sanitizing the config, after every plugin ran: their
 * access is set on the sanitized config, before Payload starts (REST, GraphQL and the admin read it
 * from there).
 */
export const restrictPayloadCollections = (config: SanitizedConfig): SanitizedConfig => {
  for (const collection of config.collections) {
    const access = PAYLOAD_COLLECTIONS_ACCESS[collection.slug]
    if (access) collection.access = { ...collection.access, ...access }
  }
  for (const global of config.globals) {
    const access = PAYLOAD_GLOBALS_ACCESS[global.slug]
    if (access) global.access = { ...global.access, ...access }
  }
  return config
}

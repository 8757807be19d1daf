import crypto from 'node:crypto'
import os from 'node:os'

import { createClient, type LicenseClient } from './client.js'
import { fileStorage } from './file-storage.js'
import type { LicenseClientOptions } from './types.js'

export { CLOCK_ROLLBACK_TOLERANCE_MS, KEY_REFETCH_INTERVAL_MS, type LicenseClient } from './client.js'
export { defaultDirectory, fileStorage } from './file-storage.js'
export { LicenseClientError } from './http.js'
export { memoryStorage, webStorage } from './storage.js'
export type * from './types.js'

/** The host's name, hashed (the fingerprint says nothing about the machine), with the install id. */
const nodeFingerprint = (installId: string) =>
  `host:${crypto.createHash('sha256').update(os.hostname()).digest('hex').slice(0, 16)};install:${installId}`

/** A license client for Node (20 or later): state in a JSON file under `$XDG_CONFIG_HOME/license-client/`. */
export const createLicenseClient = (options: LicenseClientOptions): LicenseClient =>
  createClient(options, { storage: () => fileStorage(), fingerprint: nodeFingerprint })

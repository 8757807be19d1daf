import { createClient, type LicenseClient } from './client.js'
import { webStorage } from './storage.js'
import type { LicenseClientOptions } from './types.js'

export { CLOCK_ROLLBACK_TOLERANCE_MS, KEY_REFETCH_INTERVAL_MS, type LicenseClient } from './client.js'
export { LicenseClientError } from './http.js'
export { memoryStorage, webStorage } from './storage.js'
export type * from './types.js'

/** A license client for browsers: state in `localStorage`. */
export const createLicenseClient = (options: LicenseClientOptions): LicenseClient =>
  createClient(options, { storage: () => webStorage(), fingerprint: (installId) => `install:${installId}` })

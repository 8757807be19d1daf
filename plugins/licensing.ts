import type { Config, Plugin } from 'payload'

import { AuditLog } from '../collections/AuditLog'
import { createLicensesCollection } from '../collections/Licenses'
import {
  licensePublicKeyEndpoint,
  licenseValidationPreflights,
  validateLicenseEndpoint,
} from '../endpoints/licenses-validate'
import { licenseCertificates, type SigningKeySettings } from '../src/licensing/certificates'
import { sendLicenseEmailTask, type LicenseJobOptions } from '../src/licensing/jobs'
import { expireLapsedLicensesTask } from '../src/licensing/lapse'

export type LicensingOptions = LicenseJobOptions & {
  graceDays: number
  /** Signs the certificates of /api/licenses/validate (LICENSE_SIGNING_KEY). */
  signingKey: SigningKeySettings
}

/**
 * Licensing: licenses (the single source of access), the staff audit log, the license email job,
 * the scheduled job that expires licenses whose validity ran out without an event, and license
 * validation for the kit's apps. Its endpoints sit on the collection, because Payload routes every
 * `/api/licenses/...` path to the collection's endpoints (custom ones first, then `/:id`).
 */
export const licensingPlugin =
  (options: LicensingOptions): Plugin =>
  (config: Config): Config => {
    const certificates = licenseCertificates(options.signingKey)
    const licenses = createLicensesCollection({ graceDays: options.graceDays })
    return {
      ...config,
      collections: [
        ...(config.collections ?? []),
        {
          ...licenses,
          endpoints: [
            ...(licenses.endpoints || []),
            validateLicenseEndpoint(certificates),
            licensePublicKeyEndpoint(certificates),
            ...licenseValidationPreflights(),
          ],
        },
        AuditLog,
      ],
      jobs: {
        ...config.jobs,
        tasks: [
          ...(config.jobs?.tasks ?? []),
          sendLicenseEmailTask(options),
          expireLapsedLicensesTask(options.graceDays),
        ],
      },
    }
  }

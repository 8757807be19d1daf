import type { Config, Plugin } from 'payload'

import { AuditLog } from '../collections/AuditLog'
import { createLicensesCollection } from '../collections/Licenses'
import { sendLicenseEmailTask, type LicenseJobOptions } from '../src/licensing/jobs'
import { expireLapsedLicensesTask } from '../src/licensing/lapse'

export type LicensingOptions = LicenseJobOptions & { graceDays: number }

/**
 * Licensing: licenses (the single source of access), the staff audit log, the license email job and
 * the scheduled job that expires licenses whose validity ran out without an event.
 */
export const licensingPlugin =
  (options: LicensingOptions): Plugin =>
  (config: Config): Config => ({
    ...config,
    collections: [...(config.collections ?? []), createLicensesCollection({ graceDays: options.graceDays }), AuditLog],
    jobs: {
      ...config.jobs,
      tasks: [...(config.jobs?.tasks ?? []), sendLicenseEmailTask(options), expireLapsedLicensesTask(options.graceDays)],
    },
  })

import type { Config, Plugin } from 'payload'

import { AuditLog } from '../collections/AuditLog'
import { createLicensesCollection } from '../collections/Licenses'
import { sendLicenseEmailTask, type LicenseJobOptions } from '../src/licensing/jobs'

export type LicensingOptions = LicenseJobOptions & { graceDays: number }

/** Licensing: licenses (the single source of access), the staff audit log and the license email job. */
export const licensingPlugin =
  (options: LicensingOptions): Plugin =>
  (config: Config): Config => ({
    ...config,
    collections: [...(config.collections ?? []), createLicensesCollection({ graceDays: options.graceDays }), AuditLog],
    jobs: {
      ...config.jobs,
      tasks: [...(config.jobs?.tasks ?? []), sendLicenseEmailTask(options)],
    },
  })

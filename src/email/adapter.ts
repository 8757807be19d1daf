import path from 'node:path'

import { nodemailerAdapter } from '@payloadcms/email-nodemailer'
import nodemailer from 'nodemailer'

import type { ServiceEnv } from '../config/env'
import { logger } from '../log'
import { createOutboxTransport } from './outbox'

const outboxLog = logger.child({ name: 'outbox' })

/** SMTP when SMTP_URL is set; otherwise (development) the file outbox in `<dataDir>/outbox`. */
export const createEmailAdapter = (env: ServiceEnv) =>
  nodemailerAdapter({
    defaultFromAddress: env.emailFrom,
    defaultFromName: env.emailFromName,
    // An SMTP outage must not stop the service from starting; sending retries through the jobs queue.
    skipVerify: true,
    transport: env.smtpUrl
      ? nodemailer.createTransport(env.smtpUrl)
      : createOutboxTransport(path.join(env.dataDir, 'outbox'), (line) => outboxLog.info(line), { logLinks: !env.isProduction }),
  })

import path from 'node:path'

import { nodemailerAdapter } from '@payloadcms/email-nodemailer'
import nodemailer from 'nodemailer'

import type { ServiceEnv } from '../config/env'
import { logger } from '../log'
import { createOutboxTransport } from './outbox'

const outboxLog = logger.child({ name: 'outbox' })

/**
 * SMTP_URL with a pool of up to 5 reused connections unless the URL sets `pool` itself (nodemailer
 * reads its options from the query): a burst of license emails must not open a connection per message.
 */
export const pooledSmtpUrl = (raw: string): string => {
  const url = new URL(raw)
  if (url.searchParams.has('pool')) return raw
  url.searchParams.set('pool', 'true')
  if (!url.searchParams.has('maxConnections')) url.searchParams.set('maxConnections', '5')
  return url.toString()
}

/** SMTP when SMTP_URL is set; otherwise (development) the file outbox in `<dataDir>/outbox`. */
export const createEmailAdapter = (env: ServiceEnv) =>
  nodemailerAdapter({
    defaultFromAddress: env.emailFrom,
    defaultFromName: env.emailFromName,
    // An SMTP outage must not stop the service from starting; sending retries through the jobs queue.
    skipVerify: true,
    transport: env.smtpUrl
      ? nodemailer.createTransport(pooledSmtpUrl(env.smtpUrl))
      : createOutboxTransport(path.join(env.dataDir, 'outbox'), (line) => outboxLog.info(line), {
          logLinks: !env.isProduction,
        }),
  })

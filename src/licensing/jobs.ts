import type { TaskConfig } from 'payload'

import type { SqlRow } from '../db/rows'
import { licenses, one_time_purchases, payment_history, plans, users } from '../db/schema.generated'
import { run, statement } from '../db/statements'
import { inTransaction, lockKey, sql } from '../db/transaction'
import { licenseEmail } from '../email/license-email'
import { markLicenseEmailSent } from './store'

export type LicenseJobOptions = { productName: string; serverUrl: string; retryDelayMs: number }

/**
 * What the email says, in one statement: the license, its owner's name and address, its plan's name, and
 * the hosted invoice of the payment that granted it, when the processor made one and its event came
 * before this email (the dashboard lists it either way): the newest with an invoice of its purchase's
 * payment intent, or of its subscription.
 */
const READ_LICENSE_EMAIL = statement<'id', LicenseEmailRow>(
  (p) =>
    sql`SELECT ${licenses.id}, ${licenses.key}, ${licenses.email}, ${licenses.emailSentAt},
          ${users.email} AS user_email, ${users.name} AS user_name, ${plans.name} AS plan_name,
          (SELECT ${payment_history.invoiceUrl} FROM ${payment_history}
            WHERE ${payment_history.processorInvoiceId} IS NOT NULL
              AND CASE WHEN ${one_time_purchases.id} IS NOT NULL
                    THEN ${payment_history.processorPaymentId} = ${one_time_purchases.processorPaymentIntentId}
                    ELSE ${payment_history.subscription} = ${licenses.subscription} END
            ORDER BY ${payment_history.createdAt} DESC LIMIT 1) AS invoice_url
        FROM ${licenses}
        LEFT JOIN ${users} ON ${users.id} = ${licenses.user}
        LEFT JOIN ${plans} ON ${plans.id} = ${licenses.plan}
        LEFT JOIN ${one_time_purchases} ON ${one_time_purchases.id} = ${licenses.oneTimePurchase}
        WHERE ${licenses.id} = ${p.id}`,
)

type LicenseEmailRow = Pick<SqlRow<typeof licenses>, 'id' | 'key' | 'email' | 'email_sent_at'> & {
  user_email: string | null
  user_name: string | null
  plan_name: string | null
  invoice_url: string | null
}

/**
 * Email a license key. A job, so that an SMTP outage delays the email without touching the purchase:
 * the queue retries with exponential backoff (about a day in all), and staff can re-run it.
 */
export const sendLicenseEmailTask = (options: LicenseJobOptions): TaskConfig<'sendLicenseEmail'> => ({
  slug: 'sendLicenseEmail',
  label: 'Send a license email',
  inputSchema: [{ name: 'licenseId', type: 'number', required: true }],
  outputSchema: [{ name: 'to', type: 'text' }],
  retries: { attempts: 12, backoff: { type: 'exponential', delay: options.retryDelayMs } },
  handler: async ({ input, req }) => {
    // A job is claimed by one runner (src/jobs/claim.ts), but a runner that died mid-send is reaped and
    // its job runs again (src/jobs/reaper.ts), and two jobs may name one license, so the send itself is
    // guarded: one runner at a time per license, and never twice once recorded. A crash between the SMTP
    // hand-off and the commit can still send twice; nothing can lose it.
    const to = await inTransaction(req.payload, async (tx) => {
      await lockKey(tx, `license-email:${input.licenseId}`)
      const [license] = await run(tx, READ_LICENSE_EMAIL, { id: input.licenseId })
      if (!license) throw new Error(`license ${input.licenseId} does not exist`)
      const recipient = license.user_email ?? license.email
      if (license.email_sent_at) return recipient
      if (!recipient) throw new Error(`license ${license.id} has no email address to send to`)
      const message = licenseEmail({
        productName: options.productName,
        planName: license.plan_name ?? 'plan',
        licenseKey: license.key,
        dashboardUrl: `${options.serverUrl}/dashboard`,
        recipientName: license.user_name ?? null,
        invoiceUrl: license.invoice_url ?? null,
      })
      await tx.payload.sendEmail({ to: recipient, ...message })
      // One column, in SQL: Payload's update writes back every column as this job read it, and an account
      // claiming this license meanwhile (its owner set by the claim on email verification) lost its owner.
      await markLicenseEmailSent(tx, Number(license.id))
      return recipient
    })
    return { output: { to } }
  },
})

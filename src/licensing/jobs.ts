import type { PayloadRequest, TaskConfig, Where } from 'payload'

import { relationId } from '../db/relations'
import type { License } from '../payload-types'

import { inTransaction, lockKey } from '../db/transaction'
import { licenseEmail } from '../email/license-email'
import { markLicenseEmailSent } from './store'

export type LicenseJobOptions = { productName: string; serverUrl: string; retryDelayMs: number }

/**
 * The hosted invoice of the payment that granted the license, when the processor made one and its event
 * came before this email (the dashboard lists it either way).
 */
const invoiceOf = async (req: PayloadRequest, license: License): Promise<string | null> => {
  const purchase = typeof license.oneTimePurchase === 'object' ? license.oneTimePurchase : null
  const subscription = relationId(license.subscription)
  const where: Where | null = purchase
    ? { processorPaymentId: { equals: purchase.processorPaymentIntentId } }
    : subscription !== null
      ? { subscription: { equals: subscription } }
      : null
  if (!where) return null
  const { docs } = await req.payload.find({
    collection: 'payment_history',
    where: { and: [where, { processorInvoiceId: { exists: true } }] },
    sort: '-createdAt',
    limit: 1,
    depth: 0,
    req,
  })
  return docs[0]?.invoiceUrl ?? null
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
      const license = await tx.payload.findByID({ collection: 'licenses', id: input.licenseId, depth: 1, req: tx })
      const user = typeof license.user === 'object' ? license.user : null
      const plan = typeof license.plan === 'object' ? license.plan : null
      const recipient = user?.email ?? license.email
      if (license.emailSentAt) return recipient
      if (!recipient) throw new Error(`license ${license.id} has no email address to send to`)
      const message = licenseEmail({
        productName: options.productName,
        planName: plan?.name ?? 'plan',
        licenseKey: license.key,
        dashboardUrl: `${options.serverUrl}/dashboard`,
        recipientName: user?.name ?? null,
        invoiceUrl: await invoiceOf(tx, license),
      })
      await tx.payload.sendEmail({ to: recipient, ...message })
      // One column, in SQL: Payload's update writes back every column as this job read it, and an account
      // claiming this license meanwhile (its owner set by the claim on email verification) lost its owner.
      await markLicenseEmailSent(tx, license.id)
      return recipient
    })
    return { output: { to } }
  },
})

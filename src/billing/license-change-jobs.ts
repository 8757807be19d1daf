import type { TaskConfig } from 'payload'
import Stripe from 'stripe'

import { relationId } from '../db/relations'
import { inTransaction, lockKey } from '../db/transaction'
import { licenseChangeEmail } from '../email/license-change-email'
import { windowOfLicense } from '../licensing/store'
import { windowInWords } from '../licensing/update-window'
import { billingRuntimeOf } from './runtime'

export type LicenseChangeJobOptions = { productName: string; serverUrl: string; retryDelayMs: number }

/** The processor's answer when the charge was refunded already: the refund this job owes is done. */
const alreadyRefunded = (error: unknown) =>
  error instanceof Stripe.errors.StripeInvalidRequestError && error.code === 'charge_already_refunded'

/**
 * Refund in full a paid change the webhook refused (a second upgrade from another tab, a license no
 * longer active, a forged license id). A job, so that a processor outage delays the refund without
 * losing it; one idempotency key per change, so a retried job or a crashed runner never refunds twice.
 */
export const refundLicenseChangeTask = (options: LicenseChangeJobOptions): TaskConfig<'refundLicenseChange'> => ({
  slug: 'refundLicenseChange',
  label: 'Refund a refused upgrade or renewal',
  inputSchema: [{ name: 'changeId', type: 'number', required: true }],
  outputSchema: [{ name: 'refund', type: 'text' }],
  retries: { attempts: 12, backoff: { type: 'exponential', delay: options.retryDelayMs } },
  handler: async ({ input, req }) => {
    const change = await req.payload.findByID({
      collection: 'license_changes',
      id: input.changeId,
      depth: 0,
      req,
      overrideAccess: true,
    })
    if (change.status !== 'refused' || !change.processorPaymentIntentId || (change.amount ?? 0) <= 0)
      return { output: { refund: 'nothing to refund' } }
    const { processor } = billingRuntimeOf(req.payload).require()
    let refund = 'already refunded'
    try {
      const created = await processor.refunds.create(
        {
          payment_intent: change.processorPaymentIntentId,
          reason: 'duplicate',
          metadata: { license_change_id: String(change.id), refusal: change.reason ?? '' },
        },
        { idempotencyKey: `license-change-refund:${change.id}` },
      )
      refund = created.id
    } catch (error) {
      if (!alreadyRefunded(error)) throw error
    }
    await req.payload.update({
      collection: 'license_changes',
      id: change.id,
      data: { refundRequestedAt: new Date().toISOString() },
      req,
      overrideAccess: true,
      depth: 0,
    })
    return { output: { refund } }
  },
})

/** The email after an applied upgrade or renewal; once per change, retried while the mail server fails. */
export const sendLicenseChangeEmailTask = (options: LicenseChangeJobOptions): TaskConfig<'sendLicenseChangeEmail'> => ({
  slug: 'sendLicenseChangeEmail',
  label: 'Send an upgrade or renewal email',
  inputSchema: [{ name: 'changeId', type: 'number', required: true }],
  outputSchema: [{ name: 'to', type: 'text' }],
  retries: { attempts: 12, backoff: { type: 'exponential', delay: options.retryDelayMs } },
  handler: async ({ input, req }) => {
    const to = await inTransaction(req.payload, async (tx) => {
      await lockKey(tx, `license-change-email:${input.changeId}`)
      const change = await tx.payload.findByID({
        collection: 'license_changes',
        id: input.changeId,
        depth: 0,
        req: tx,
        overrideAccess: true,
      })
      const licenseId = relationId(change.license)
      if (change.emailSentAt || change.status !== 'applied' || licenseId === null) return null
      const license = await tx.payload.findByID({
        collection: 'licenses',
        id: licenseId,
        depth: 1,
        req: tx,
        overrideAccess: true,
      })
      const user = typeof license.user === 'object' ? license.user : null
      const plan = typeof license.plan === 'object' ? license.plan : null
      const recipient = user?.email ?? license.email
      if (!recipient) throw new Error(`license ${license.id} has no email address to send to`)
      const message = licenseChangeEmail({
        productName: options.productName,
        kind: change.kind,
        planName: plan?.name ?? 'plan',
        updates: windowInWords(windowOfLicense(license)),
        dashboardUrl: `${options.serverUrl}/dashboard`,
        recipientName: user?.name ?? null,
      })
      await tx.payload.sendEmail({ to: recipient, ...message })
      await tx.payload.update({
        collection: 'license_changes',
        id: change.id,
        data: { emailSentAt: new Date().toISOString() },
        req: tx,
        overrideAccess: true,
        depth: 0,
      })
      return recipient
    })
    return { output: { to: to ?? '' } }
  },
})

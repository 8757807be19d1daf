import type { TaskConfig } from 'payload'

import { licenseEmail } from '../email/license-email'

export type LicenseJobOptions = { productName: string; serverUrl: string; retryDelayMs: number }

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
    const license = await req.payload.findByID({ collection: 'licenses', id: input.licenseId, depth: 1, req })
    const user = typeof license.user === 'object' ? license.user : null
    const plan = typeof license.plan === 'object' ? license.plan : null
    const to = user?.email ?? license.email
    if (!to) throw new Error(`license ${license.id} has no email address to send to`)
    const message = licenseEmail({
      productName: options.productName,
      planName: plan?.name ?? 'plan',
      licenseKey: license.key,
      dashboardUrl: `${options.serverUrl}/dashboard`,
      recipientName: user?.name ?? null,
    })
    await req.payload.sendEmail({ to, ...message })
    return { output: { to } }
  },
})

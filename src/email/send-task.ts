import type { TaskConfig } from 'payload'

/**
 * Send one email. Account emails (magic links, verification) are queued in the transaction that
 * creates their token, so an SMTP outage delays them and retries instead of failing the request.
 */
export const sendEmailTask = (retryDelayMs: number): TaskConfig<'sendEmail'> => ({
  slug: 'sendEmail',
  label: 'Send an email',
  inputSchema: [
    { name: 'to', type: 'email', required: true },
    { name: 'subject', type: 'text', required: true },
    { name: 'text', type: 'textarea', required: true },
    { name: 'html', type: 'textarea', required: true },
  ],
  retries: { attempts: 8, backoff: { type: 'exponential', delay: retryDelayMs } },
  handler: async ({ input, req }) => {
    await req.payload.sendEmail({ to: input.to, subject: input.subject, text: input.text, html: input.html })
    return { output: {} }
  },
})

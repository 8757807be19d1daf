import type { PayloadRequest, TaskConfig } from 'payload'

import { seal, unseal } from './sealed'

export type EmailMessage = {
  to: string
  subject: string
  text: string
  html: string
  /** Extra headers (a recovery email's List-Unsubscribe), sealed with the body. */
  headers?: Record<string, string>
}

/**
 * Queue one email in the caller's transaction. Only the recipient and subject are stored readable;
 * the body (which may carry a sign-in link) is sealed until the job sends it.
 */
export const queueEmail = async (req: PayloadRequest, message: EmailMessage) => {
  const body = seal(
    req.payload.secret,
    JSON.stringify({
      text: message.text,
      html: message.html,
      ...(message.headers ? { headers: message.headers } : {}),
    }),
  )
  await req.payload.jobs.queue({ task: 'sendEmail', input: { to: message.to, subject: message.subject, body }, req })
}

/** Queue one email to each admin, in the caller's transaction (a warning only they can act on). */
export const queueEmailToAdmins = async (req: PayloadRequest, message: Omit<EmailMessage, 'to'>) => {
  const admins = await req.payload.find({
    collection: 'users',
    where: { roles: { in: ['admin'] } },
    limit: 100,
    depth: 0,
    pagination: false,
    overrideAccess: true,
    req,
  })
  for (const admin of admins.docs) await queueEmail(req, { to: admin.email, ...message })
}

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
    {
      name: 'body',
      type: 'text',
      required: true,
      admin: { description: 'Sealed (AES-256-GCM): readable only by this job.' },
    },
  ],
  retries: { attempts: 8, backoff: { type: 'exponential', delay: retryDelayMs } },
  handler: async ({ input, req }) => {
    const { text, html, headers } = JSON.parse(unseal(req.payload.secret, input.body)) as {
      text: string
      html: string
      headers?: Record<string, string>
    }
    await req.payload.sendEmail({ to: input.to, subject: input.subject, text, html, ...(headers ? { headers } : {}) })
    return { output: {} }
  },
})

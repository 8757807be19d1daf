import type { TaskConfig } from 'payload'

import { inTransaction, lockKey } from '../db/transaction'
import { supportReplyEmail } from './reply-email'

export const SEND_SUPPORT_REPLY_TASK = 'sendSupportReply'

export type SupportJobOptions = { productName: string; serverUrl: string; retryDelayMs: number }

/**
 * Email a staff reply to the customer. A job, so an SMTP outage delays the email and never the reply:
 * the queue retries with exponential backoff. The job's input is the reply's id only; the text stays in
 * `support_replies`, readable by the customer and staff alone.
 */
export const sendSupportReplyTask = (options: SupportJobOptions): TaskConfig<'sendSupportReply'> => ({
  slug: SEND_SUPPORT_REPLY_TASK,
  label: 'Email a support reply',
  inputSchema: [{ name: 'replyId', type: 'number', required: true }],
  outputSchema: [{ name: 'to', type: 'text' }],
  retries: { attempts: 10, backoff: { type: 'exponential', delay: options.retryDelayMs } },
  handler: async ({ input, req }) => {
    // One runner at a time per reply, and never twice once recorded (as the license email).
    const to = await inTransaction(req.payload, async (tx) => {
      await lockKey(tx, `support-reply-email:${input.replyId}`)
      const reply = await tx.payload.findByID({
        collection: 'support_replies',
        id: input.replyId,
        depth: 0,
        req: tx,
        disableErrors: true,
      })
      // Deleted by an admin before it went out, or a customer's own message: nothing to send.
      if (!reply || !reply.fromStaff) return null
      const request = await tx.payload.findByID({
        collection: 'support_requests',
        id: reply.request as number,
        depth: 1,
        req: tx,
      })
      const customer = typeof request.user === 'object' ? request.user : null
      if (!customer?.email) throw new Error(`support request ${request.id} has no customer email to send to`)
      if (reply.emailedAt) return customer.email
      const message = supportReplyEmail({
        productName: options.productName,
        requestId: request.id,
        subject: request.subject,
        reply: reply.body,
        accountUrl: `${options.serverUrl}/dashboard`,
        recipientName: customer.name ?? null,
      })
      await tx.payload.sendEmail({ to: customer.email, ...message })
      await tx.payload.update({
        collection: 'support_replies',
        id: reply.id,
        data: { emailedAt: new Date().toISOString() },
        req: tx,
        overrideAccess: true,
      })
      return customer.email
    })
    return { output: { to } }
  },
})

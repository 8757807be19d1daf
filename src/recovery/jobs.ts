import type { TaskConfig } from 'payload'

import type { RecoveryRuntime } from './runtime'
import { sendRecoveryEmail } from './send'

/** One abandoned checkout's recovery email, queued to run when it is due (RECOVERY_EMAIL_DELAY_MINUTES). */
export const sendRecoveryEmailTask = (
  runtime: RecoveryRuntime,
  retryDelayMs: number,
): TaskConfig<'sendRecoveryEmail'> => ({
  slug: 'sendRecoveryEmail',
  label: 'Send an abandoned checkout its recovery email',
  inputSchema: [{ name: 'recoveryId', type: 'number', required: true }],
  outputSchema: [{ name: 'result', type: 'text' }],
  retries: { attempts: 8, backoff: { type: 'exponential', delay: retryDelayMs } },
  handler: async ({ input, req }) => ({
    output: { result: await sendRecoveryEmail(req.payload, runtime, input.recoveryId) },
  }),
})

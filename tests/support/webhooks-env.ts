/**
 * Import right after billing-env in a webhooks test: receivers on 127.0.0.1 (WEBHOOK_ALLOW_PRIVATE), a
 * 1 s receiver timeout and 5 ms between the first attempts, set before anything reads the config.
 */
import { afterAll } from 'vitest'

import { startWebhookReceiver } from './webhook-receiver'

export const WEBHOOK_TIMEOUT_MS = 1000
const WEBHOOK_RETRY_BASE_MS = 5
process.env.WEBHOOK_ALLOW_PRIVATE = 'true'
process.env.WEBHOOK_TIMEOUT_MS = String(WEBHOOK_TIMEOUT_MS)
process.env.WEBHOOK_RETRY_BASE_MS = String(WEBHOOK_RETRY_BASE_MS)

export const receiver = await startWebhookReceiver()

afterAll(async () => {
  await receiver.close()
})

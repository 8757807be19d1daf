import { type CollectionBeforeChangeHook, ValidationError } from 'payload'

import type { WebhookEndpoint } from '../payload-types'
import { checkWebhookUrl } from './address'
import { generateSigningSecret, sealSecret } from './secrets'

/**
 * Before a webhook endpoint is saved: its URL must pass the address rules (https on a public address,
 * never link-local or metadata; docs/WEBHOOKS.md), a new endpoint gets its signing secret, and an
 * endpoint turned back on starts counting failed events afresh.
 */
export const prepareWebhookEndpoint =
  (options: { allowPrivate: boolean }): CollectionBeforeChangeHook<WebhookEndpoint> =>
  async ({ data, originalDoc, operation, req }) => {
    const next = { ...data }
    const url = typeof next.url === 'string' ? next.url.trim() : next.url
    if (operation === 'create' || (url !== undefined && url !== originalDoc?.url)) {
      const check = await checkWebhookUrl(String(url ?? ''), { allowPrivate: options.allowPrivate })
      if (!check.ok)
        throw new ValidationError(
          { collection: 'webhook_endpoints', errors: [{ path: 'url', message: check.reason }] },
          req.t,
        )
      next.url = check.url.toString()
    }
    if (operation === 'create') {
      next.secretSealed = sealSecret(req.payload.secret, generateSigningSecret())
      next.previousSecretSealed = null
      next.previousSecretExpiresAt = null
      next.secretShownAt = null
      next.failedEventsInARow = 0
      next.disabledAt = null
    }
    if (operation === 'update' && next.enabled === true && originalDoc && !originalDoc.enabled) {
      next.failedEventsInARow = 0
      next.disabledAt = null
    }
    return next
  }

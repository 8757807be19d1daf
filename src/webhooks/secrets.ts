import crypto from 'node:crypto'

import { seal, unseal } from '../email/sealed'
import type { WebhookEndpoint } from '../payload-types'

/** A signing secret as Standard Webhooks spell it: `whsec_` and 32 random bytes in base64. */
export const generateSigningSecret = (): string => `whsec_${crypto.randomBytes(32).toString('base64')}`

export const sealSecret = (payloadSecret: string, secret: string): string =>
  seal(payloadSecret, secret, 'webhook-secret/v1')

const unsealSecret = (payloadSecret: string, sealed: string): string =>
  unseal(payloadSecret, sealed, 'webhook-secret/v1')

type SecretColumns = Pick<WebhookEndpoint, 'secretSealed' | 'previousSecretSealed' | 'previousSecretExpiresAt'>

/**
 * The secrets that sign a delivery to this endpoint now: its own, and for 24 hours after a rotation the
 * one before it too (each gives one `v1,` signature), so a receiver can switch secrets at its own pace.
 */
export const signingSecrets = (payloadSecret: string, endpoint: SecretColumns, now = new Date()): string[] => {
  const secrets: string[] = []
  if (endpoint.secretSealed) secrets.push(unsealSecret(payloadSecret, endpoint.secretSealed))
  const previousValid =
    endpoint.previousSecretExpiresAt && new Date(endpoint.previousSecretExpiresAt).getTime() > now.getTime()
  if (endpoint.previousSecretSealed && previousValid) {
    // Sealed under an earlier PAYLOAD_SECRET (the endpoint's secret was rotated since): it signs no more.
    const previous = readable(() => unsealSecret(payloadSecret, endpoint.previousSecretSealed!))
    if (previous) secrets.push(previous)
  }
  return secrets
}

const readable = (read: () => string): string | null => {
  try {
    return read()
  } catch {
    return null
  }
}

/** Why an endpoint's deliveries cannot be signed: its secret was sealed under another PAYLOAD_SECRET. */
export const UNREADABLE_SECRET =
  "The endpoint's signing secret cannot be read (PAYLOAD_SECRET changed since it was made): rotate the endpoint's secret."

/** The endpoint's current secret in clear, for the one time it is shown. */
export const currentSecret = (payloadSecret: string, endpoint: Pick<WebhookEndpoint, 'secretSealed'>): string | null =>
  endpoint.secretSealed ? unsealSecret(payloadSecret, endpoint.secretSealed) : null

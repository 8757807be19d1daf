import crypto from 'node:crypto'

import { seal, unseal } from '../email/sealed'

/**
 * The recovery email's two links (docs/CHECKOUT_RECOVERY.md):
 * - `/checkout/recover/<session>?t=<signature>`: an HMAC-SHA256 of the checkout's ID with a key derived
 *   from PAYLOAD_SECRET, so knowing (or guessing) another buyer's checkout ID opens nothing;
 * - `/api/email/unsubscribe/<token>`: the address itself, sealed (AES-256-GCM), so the link names whom
 *   it unsubscribes without the service keeping a table of tokens, and cannot be made for another address.
 */
const recoverKey = (secret: string) =>
  Buffer.from(crypto.hkdfSync('sha256', secret, Buffer.alloc(0), 'checkout-recover-link/v1', 32))

const signatureOf = (secret: string, sessionId: string) =>
  crypto.createHmac('sha256', recoverKey(secret)).update(sessionId).digest('base64url').slice(0, 32)

/** The processor's checkout IDs: `cs_test_...` / `cs_live_...`, letters and digits. */
const CHECKOUT_SESSION_ID = /^cs_(?:test|live)_[A-Za-z0-9]{1,200}$/

export const recoverPath = (secret: string, sessionId: string) =>
  `/checkout/recover/${encodeURIComponent(sessionId)}?t=${signatureOf(secret, sessionId)}`

/** Whether `signature` is this checkout's (compared in constant time). */
export const verifyRecoverSignature = (secret: string, sessionId: string, signature: string | null): boolean => {
  if (!signature || !CHECKOUT_SESSION_ID.test(sessionId)) return false
  const expected = Buffer.from(signatureOf(secret, sessionId))
  const given = Buffer.from(signature)
  return given.length === expected.length && crypto.timingSafeEqual(given, expected)
}

/** An address as the per-address rules compare it: trimmed, lowercased. */
export const normalEmail = (email: string) => email.trim().toLowerCase()

/**
 * SHA-256 of the normalized address. Deliberately not keyed by PAYLOAD_SECRET: rotating the secret must
 * not forget who unsubscribed.
 */
export const emailHash = (email: string) => crypto.createHash('sha256').update(normalEmail(email)).digest('hex')

export const unsubscribeToken = (secret: string, email: string) => seal(secret, normalEmail(email), 'unsubscribe/v1')

/** The address an unsubscribe token was made for, or null for a forged, altered or foreign token. */
export const addressOfUnsubscribeToken = (secret: string, token: string): string | null => {
  if (!/^v1\.[A-Za-z0-9_-]{40,2000}$/.test(token)) return null
  try {
    const address = unseal(secret, token, 'unsubscribe/v1')
    return address.includes('@') ? address : null
  } catch {
    return null
  }
}

export const sealRecoveryUrl = (secret: string, url: string) => seal(secret, url, 'recovery-url/v1')

/** The processor's recovery URL, or null when it was sealed under another secret. */
export const unsealRecoveryUrl = (secret: string, sealed: string): string | null => {
  try {
    return unseal(secret, sealed, 'recovery-url/v1')
  } catch {
    return null
  }
}

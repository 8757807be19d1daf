import crypto from 'node:crypto'

import { REFERRAL_COOKIE } from './states'

/**
 * The referral cookie (`kit_ref`): `{code, clickId, issuedAt}` as base64url JSON, then an HMAC-SHA256 of
 * it with a key derived from PAYLOAD_SECRET. A cookie altered, made elsewhere, or older than its
 * Max-Age reads as none.
 */
export type Referral = { code: string; clickId: number; issuedAt: number }

const keyOf = (secret: string) =>
  Buffer.from(crypto.hkdfSync('sha256', secret, Buffer.alloc(0), 'affiliate-referral/v1', 32))

const macOf = (secret: string, body: string) =>
  crypto.createHmac('sha256', keyOf(secret)).update(body).digest('base64url')

export const signReferral = (secret: string, referral: Referral): string => {
  const body = Buffer.from(JSON.stringify(referral)).toString('base64url')
  return `${body}.${macOf(secret, body)}`
}

/** The referral a cookie value carries, or null (unsigned, altered, foreign, expired or malformed). */
export const readReferral = (
  secret: string,
  value: string | null | undefined,
  maxAgeMs: number,
  now = Date.now(),
): Referral | null => {
  if (!value || value.length > 512) return null
  const [body, mac] = value.split('.')
  if (!body || !mac) return null
  const expected = Buffer.from(macOf(secret, body))
  const given = Buffer.from(mac)
  if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) return null
  try {
    const parsed = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Partial<Referral>
    if (
      typeof parsed.code !== 'string' ||
      !Number.isSafeInteger(parsed.clickId) ||
      !Number.isSafeInteger(parsed.issuedAt)
    )
      return null
    if (parsed.issuedAt! > now + 60_000 || now - parsed.issuedAt! > maxAgeMs) return null
    return { code: parsed.code, clickId: parsed.clickId!, issuedAt: parsed.issuedAt! }
  } catch {
    return null
  }
}

/** The Set-Cookie value: first-party, HttpOnly, Lax (it must survive the click from another site). */
export const referralCookie = (value: string, days: number, secure: boolean) =>
  `${REFERRAL_COOKIE}=${value}; Max-Age=${days * 86_400}; Path=/; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`

/** The cookie's value in a Cookie header, or null. */
export const referralFromCookieHeader = (header: string | null | undefined): string | null => {
  for (const part of (header ?? '').split(';')) {
    const [name, ...rest] = part.trim().split('=')
    if (name === REFERRAL_COOKIE) return rest.join('=') || null
  }
  return null
}

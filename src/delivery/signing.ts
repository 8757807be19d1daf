import crypto from 'node:crypto'

/**
 * Links to the service's own file route (no S3): an HMAC-SHA256 over release, user and expiry with a
 * key derived from PAYLOAD_SECRET, so a link cannot be altered, reused by another account, or kept
 * past its expiry.
 */
const keyFor = (secret: string) => crypto.createHmac('sha256', secret).update('release-download-links').digest()

const mac = (secret: string, releaseId: number, userId: number, expires: number) =>
  crypto.createHmac('sha256', keyFor(secret)).update(`${releaseId}.${userId}.${expires}`).digest('base64url')

export const signDownload = (secret: string, releaseId: number, userId: number, expires: number): string =>
  mac(secret, releaseId, userId, expires)

export const verifyDownload = (
  secret: string,
  link: { releaseId: number; userId: number; expires: number; signature: string },
  nowSeconds = Math.floor(Date.now() / 1000),
): 'valid' | 'expired' | 'invalid' => {
  const expected = Buffer.from(mac(secret, link.releaseId, link.userId, link.expires))
  const given = Buffer.from(link.signature)
  if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) return 'invalid'
  return link.expires > nowSeconds ? 'valid' : 'expired'
}

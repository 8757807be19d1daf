import crypto from 'node:crypto'

/**
 * An email's body in the jobs table is sealed (AES-256-GCM, a key derived with HKDF-SHA256 from the
 * Payload secret): sign-in, confirmation and reset links are readable only by the job that sends them,
 * not by whoever can list payload-jobs or read a database copy.
 */
const VERSION = 'v1'

/** What a sealed value is for: each purpose has its own key, so one kind of value cannot be passed off as another. */
export type SealPurpose = 'email-job-body/v1' | 'webhook-secret/v1' | 'recovery-url/v1' | 'unsubscribe/v1'

const keyOf = (secret: string, purpose: SealPurpose) =>
  Buffer.from(crypto.hkdfSync('sha256', secret, Buffer.alloc(0), purpose, 32))

export const seal = (secret: string, plaintext: string, purpose: SealPurpose = 'email-job-body/v1'): string => {
  const iv = crypto.randomBytes(12)
  const cipher = crypto.createCipheriv('aes-256-gcm', keyOf(secret, purpose), iv)
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()])
  return `${VERSION}.${Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64url')}`
}

export const unseal = (secret: string, sealed: string, purpose: SealPurpose = 'email-job-body/v1'): string => {
  const [version, body] = sealed.split('.')
  if (version !== VERSION || !body) throw new Error('unknown sealed value format')
  const raw = Buffer.from(body, 'base64url')
  const decipher = crypto.createDecipheriv('aes-256-gcm', keyOf(secret, purpose), raw.subarray(0, 12))
  decipher.setAuthTag(raw.subarray(12, 28))
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8')
}

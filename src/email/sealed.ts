import crypto from 'node:crypto'

/**
 * An email's body in the jobs table is sealed (AES-256-GCM, a key derived with HKDF-SHA256 from the
 * Payload secret): sign-in, confirmation and reset links are readable only by the job that sends them,
 * not by whoever can list payload-jobs or read a database copy.
 */
const VERSION = 'v1'

const keyOf = (secret: string) => Buffer.from(crypto.hkdfSync('sha256', secret, Buffer.alloc(0), 'email-job-body/v1', 32))

export const seal = (secret: string, plaintext: string): string => {
  const iv = crypto.randomBytes(12)
  const cipher = crypto.createCipheriv('aes-256-gcm', keyOf(secret), iv)
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()])
  return `${VERSION}.${Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64url')}`
}

export const unseal = (secret: string, sealed: string): string => {
  const [version, body] = sealed.split('.')
  if (version !== VERSION || !body) throw new Error('unknown sealed email format')
  const raw = Buffer.from(body, 'base64url')
  const decipher = crypto.createDecipheriv('aes-256-gcm', keyOf(secret), raw.subarray(0, 12))
  decipher.setAuthTag(raw.subarray(12, 28))
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8')
}

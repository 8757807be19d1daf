import crypto, { type KeyObject } from 'node:crypto'

const NOT_A_KEY = 'LICENSE_SIGNING_KEY is not an Ed25519 private key (PKCS#8 PEM or private JWK)'

/**
 * An Ed25519 private key from a PKCS#8 PEM (with real or `\n`-escaped newlines, as env files hold
 * them) or a private JWK. The error never quotes the value: it is a secret.
 */
export const parseSigningKey = (text: string): KeyObject => {
  const trimmed = text.trim()
  let key: KeyObject
  try {
    key = trimmed.startsWith('{')
      ? crypto.createPrivateKey({ key: JSON.parse(trimmed) as crypto.JsonWebKey, format: 'jwk' })
      : crypto.createPrivateKey({ key: trimmed.replace(/\\n/g, '\n'), format: 'pem' })
  } catch {
    throw new Error(NOT_A_KEY)
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new Error(NOT_A_KEY)
  return key
}

import crypto, { type JsonWebKey, type KeyObject } from 'node:crypto'
import { promisify } from 'node:util'

import type { OAuthHost } from './context'
import type { AuthorizationCode, OAuthAccount } from './types'

export type SigningKey = { kid: string; privateKey: KeyObject; publicJwk: JsonWebKey }

const ID_TOKEN_LIFETIME_S = 3600

const generateKeyPair = promisify(crypto.generateKeyPair)

/** A fresh RSA key per stand-in, so a token signed by another run never verifies. */
export const createSigningKey = async (): Promise<SigningKey> => {
  const { privateKey, publicKey } = await generateKeyPair('rsa', { modulusLength: 2048 })
  const kid = crypto.randomBytes(20).toString('hex')
  return { kid, privateKey, publicJwk: { ...publicKey.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' } }
}

const encodeSegment = (value: object): string => Buffer.from(JSON.stringify(value)).toString('base64url')

const signJwt = (key: SigningKey, claims: object): string => {
  const signingInput = `${encodeSegment({ alg: 'RS256', kid: key.kid, typ: 'JWT' })}.${encodeSegment(claims)}`
  const signature = crypto.sign('sha256', Buffer.from(signingInput), key.privateKey).toString('base64url')
  return `${signingInput}.${signature}`
}

/** OpenID Connect's at_hash: the left half of the access token's SHA-256, base64url-encoded. */
const accessTokenHash = (accessToken: string): string =>
  crypto.createHash('sha256').update(accessToken).digest().subarray(0, 16).toString('base64url')

/** Google puts the email only in tokens for the `email` scope and the name only for `profile`. */
export const profileClaims = (account: OAuthAccount, scopes: string[]) => ({
  ...(scopes.includes('email') ? { email: account.email, email_verified: account.emailVerified } : {}),
  ...(scopes.includes('profile') && account.name !== undefined ? { name: account.name } : {}),
})

/** Google's ID token for the account a code was approved for, signed RS256 with the stand-in's key. */
export const googleIdToken = (host: OAuthHost, code: AuthorizationCode, accessToken: string): string => {
  const issuedAt = Math.floor(host.now().getTime() / 1000)
  return signJwt(host.signingKey, {
    iss: host.endpoints.google.issuer,
    azp: code.clientId,
    aud: code.clientId,
    sub: code.account.id,
    ...profileClaims(code.account, code.scopes),
    at_hash: accessTokenHash(accessToken),
    nonce: code.nonce,
    iat: issuedAt,
    exp: issuedAt + ID_TOKEN_LIFETIME_S,
  })
}

import crypto from 'node:crypto'

import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT, type JWK, type KeyLike } from 'jose'

import type { OAuthHost } from './context'
import type { AuthorizationCode, OAuthAccount } from './types'

export type SigningKey = { privateKey: KeyLike; publicJwk: JWK & { kid: string } }

const ID_TOKEN_LIFETIME_S = 3600

/** A fresh RSA key per stand-in, so a token signed by another run never verifies; its kid is its thumbprint. */
export const createSigningKey = async (): Promise<SigningKey> => {
  const { privateKey, publicKey } = await generateKeyPair('RS256')
  const jwk = await exportJWK(publicKey)
  return { privateKey, publicJwk: { ...jwk, kid: await calculateJwkThumbprint(jwk), alg: 'RS256', use: 'sig' } }
}

/** OpenID Connect's at_hash: the left half of the access token's SHA-256, base64url-encoded. */
const accessTokenHash = (accessToken: string): string =>
  crypto.createHash('sha256').update(accessToken).digest().subarray(0, 16).toString('base64url')

/** Google puts the email only in tokens for the `email` scope and the name only for `profile`. */
export const profileClaims = (account: OAuthAccount, scopes: string[]) => ({
  ...(scopes.includes('email') ? { email: account.email, email_verified: account.emailVerified } : {}),
  ...(scopes.includes('profile') && account.name !== undefined ? { name: account.name } : {}),
})

/** Google's ID token for the account a code was approved for, signed RS256 (jose) with the stand-in's key. */
export const googleIdToken = (host: OAuthHost, code: AuthorizationCode, accessToken: string): Promise<string> => {
  const issuedAt = Math.floor(host.now().getTime() / 1000)
  return new SignJWT({
    iss: host.endpoints.google.issuer,
    azp: code.clientId,
    aud: code.clientId,
    sub: code.account.id,
    ...profileClaims(code.account, code.scopes),
    at_hash: accessTokenHash(accessToken),
    ...(code.nonce === undefined ? {} : { nonce: code.nonce }),
    iat: issuedAt,
    exp: issuedAt + ID_TOKEN_LIFETIME_S,
  })
    .setProtectedHeader({ alg: 'RS256', kid: host.signingKey.publicJwk.kid, typ: 'JWT' })
    .sign(host.signingKey.privateKey)
}

import crypto from 'node:crypto'

import type { OAuthHost } from './context'
import type { AccessToken, AuthorizationCode, OAuthProvider } from './types'

/** What Google's token endpoint answers as `expires_in`. */
export const GOOGLE_TOKEN_LIFETIME_S = 3599

/** Shaped like the real ones: GitHub's OAuth tokens start `gho_`, Google's `ya29.`. */
const newToken = (provider: OAuthProvider): string =>
  provider === 'github'
    ? `gho_${crypto.randomBytes(18).toString('hex')}`
    : `ya29.${crypto.randomBytes(96).toString('base64url')}`

export const issueAccessToken = (host: OAuthHost, code: AuthorizationCode): AccessToken => {
  const token: AccessToken = {
    token: newToken(code.provider),
    provider: code.provider,
    clientId: code.clientId,
    account: code.account,
    scopes: code.scopes,
    ...(code.provider === 'google'
      ? { expiresAt: new Date(host.now().getTime() + GOOGLE_TOKEN_LIFETIME_S * 1000) }
      : {}),
  }
  host.state.tokens.set(token.token, token)
  code.accessToken = token.token
  return token
}

/**
 * The token an `Authorization` header presents to a provider's API, when that provider issued it and it
 * has not expired. `schemes` are the ones the provider takes: GitHub's API also reads `token <token>`.
 */
export const presentedAccessToken = (
  host: OAuthHost,
  provider: OAuthProvider,
  header: string | undefined,
  schemes: string[],
): AccessToken | undefined => {
  const [scheme, value, ...rest] = header?.trim().split(/\s+/) ?? []
  if (!scheme || !value || rest.length > 0 || !schemes.includes(scheme.toLowerCase())) return undefined
  const token = host.state.tokens.get(value)
  if (!token || token.provider !== provider) return undefined
  if (token.expiresAt && token.expiresAt <= host.now()) return undefined
  return token
}

import crypto from 'node:crypto'

import type { DiscordHost, Grant } from './context'

/** Discord's access tokens live a week: the token endpoint's `expires_in`. */
export const ACCESS_TOKEN_LIFETIME_S = 604_800

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'

/** Discord's codes, access and refresh tokens are 30 letters and digits, e.g. `rITZ1JtyTBnSCMYdne7iw5g32iFurs`. */
export const randomToken = (length = 30): string =>
  Array.from(crypto.randomBytes(length), (byte) => ALPHANUMERIC[byte % ALPHANUMERIC.length]).join('')

/** A new access and refresh token for the user, replacing `previous` (a refresh) when given. */
export const issueGrant = (host: DiscordHost, userId: string, scopes: string[], previous?: Grant): Grant => {
  if (previous) revokeGrant(host, previous)
  const grant: Grant = {
    userId,
    scopes,
    accessToken: randomToken(),
    refreshToken: randomToken(),
    accessExpiresAt: new Date(host.now().getTime() + ACCESS_TOKEN_LIFETIME_S * 1000),
  }
  host.accessTokens.set(grant.accessToken, grant)
  host.issuedAccessTokens.push(grant.accessToken)
  host.refreshTokens.set(grant.refreshToken, grant)
  return grant
}

/** Revoking either token of an authorization ends both, as Discord's revocation endpoint does. */
export const revokeGrant = (host: DiscordHost, grant: Grant): void => {
  host.accessTokens.delete(grant.accessToken)
  host.refreshTokens.delete(grant.refreshToken)
}

/** The live grant of an access token, or undefined when it is unknown, revoked or past its week. */
export const grantOfAccessToken = (host: DiscordHost, token: string | undefined): Grant | undefined => {
  const grant = token === undefined ? undefined : host.accessTokens.get(token)
  if (!grant || grant.accessExpiresAt <= host.now()) return undefined
  return grant
}

/** The token of `Authorization: <scheme> <token>` when the scheme is the one asked for (any case). */
export const presentedToken = (header: string | undefined, scheme: 'Bot' | 'Bearer'): string | undefined => {
  const [given, value, ...rest] = header?.trim().split(/\s+/) ?? []
  if (!given || !value || rest.length > 0 || given.toLowerCase() !== scheme.toLowerCase()) return undefined
  return value
}

import crypto from 'node:crypto'

import { CodeChallengeMethod, generateCodeVerifier, generateState, OAuth2Client } from 'arctic'
import { createRemoteJWKSet, jwtVerify } from 'jose'
import type { Payload } from 'payload'

import { inTransaction } from '../db/transaction'
import { ServiceError } from '../http/errors'
import { sameSitePath } from '../http/paths'
import type { User } from '../payload-types'
import { proveOwnership } from './ownership'
import { RANDOM_PASSWORD, randomPassword } from './password-hash'

type OAuthProviderName = 'github' | 'google'

export type OAuthSettings = {
  serverUrl: string
  /** Signs the state cookie. */
  secret: string
  secureCookies: boolean
  github?: { clientId: string; clientSecret: string; authorizeUrl: string; tokenUrl: string; apiUrl: string }
  google?: {
    clientId: string
    clientSecret: string
    authorizeUrl: string
    tokenUrl: string
    issuer: string
    jwksUrl: string
  }
}

declare module '../config/runtime' {
  interface PluginRuntimes {
    accounts: { oauth: OAuthSettings }
  }
}

export const STATE_COOKIE = 'kit-oauth'
const STATE_TTL_SECONDS = 600

type PendingAuthorization = {
  provider: OAuthProviderName
  state: string
  verifier: string
  nonce: string | null
  next: string | null
  exp: number
}

const mac = (secret: string, value: string) =>
  crypto.createHmac('sha256', secret).update(`oauth-state.${value}`).digest('base64url')

const cookie = (settings: OAuthSettings, value: string, maxAge: number) =>
  `${STATE_COOKIE}=${value}; Path=/auth/callback; HttpOnly; SameSite=Lax; Max-Age=${maxAge}${settings.secureCookies ? '; Secure' : ''}`

const redirectUri = (settings: OAuthSettings) => `${settings.serverUrl}/auth/callback`

const isOAuthProvider = (value: string): value is OAuthProviderName => value === 'github' || value === 'google'

/**
 * Start signing in with a provider: a fresh `state`, PKCE verifier and (OpenID Connect) `nonce`, kept
 * in a signed, HttpOnly cookie scoped to /auth/callback for 10 minutes; then to the provider.
 */
export const startOAuth = (
  settings: OAuthSettings,
  provider: string,
  next: unknown,
): { location: string; cookie: string } => {
  if (!isOAuthProvider(provider) || !settings[provider])
    throw new ServiceError(404, 'unknown_provider', 'There is no such sign-in provider.')
  const state = generateState()
  const verifier = generateCodeVerifier()
  const nonce = provider === 'google' ? generateState() : null
  const config = settings[provider]
  const client = new OAuth2Client(config.clientId, config.clientSecret, redirectUri(settings))
  const scopes = provider === 'github' ? ['read:user', 'user:email'] : ['openid', 'email', 'profile']
  const url = client.createAuthorizationURLWithPKCE(
    config.authorizeUrl,
    state,
    CodeChallengeMethod.S256,
    verifier,
    scopes,
  )
  if (nonce) url.searchParams.set('nonce', nonce)
  const pending: PendingAuthorization = {
    provider,
    state,
    verifier,
    nonce,
    next: sameSitePath(next, settings.serverUrl),
    exp: Math.floor(Date.now() / 1000) + STATE_TTL_SECONDS,
  }
  const value = Buffer.from(JSON.stringify(pending)).toString('base64url')
  return {
    location: url.toString(),
    cookie: cookie(settings, `${value}.${mac(settings.secret, value)}`, STATE_TTL_SECONDS),
  }
}

export const clearStateCookie = (settings: OAuthSettings) => cookie(settings, '', 0)

const readPending = (settings: OAuthSettings, raw: string | undefined): PendingAuthorization | null => {
  const [value, signature] = (raw ?? '').split('.')
  if (!value || !signature) return null
  const expected = Buffer.from(mac(settings.secret, value))
  const given = Buffer.from(signature)
  if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) return null
  try {
    const pending = JSON.parse(Buffer.from(value, 'base64url').toString()) as PendingAuthorization
    return pending.exp > Date.now() / 1000 ? pending : null
  } catch {
    return null
  }
}

type ProviderIdentity = { subject: string; email: string | null; emailVerified: boolean; name: string | null }

const githubIdentity = async (
  config: NonNullable<OAuthSettings['github']>,
  accessToken: string,
): Promise<ProviderIdentity> => {
  const headers = {
    Authorization: `Bearer ${accessToken}`,
    Accept: 'application/vnd.github+json',
    'User-Agent': 'starter-kit-licensing',
  }
  const [userResponse, emailsResponse] = await Promise.all([
    fetch(`${config.apiUrl}/user`, { headers }),
    fetch(`${config.apiUrl}/user/emails`, { headers }),
  ])
  if (!userResponse.ok) throw new Error(`GitHub /user answered ${userResponse.status}`)
  const user = (await userResponse.json()) as { id: number; name?: string | null; login: string }
  const emails = emailsResponse.ok
    ? ((await emailsResponse.json()) as { email: string; primary: boolean; verified: boolean }[])
    : []
  const primary = emails.find((entry) => entry.primary) ?? null
  return {
    subject: String(user.id),
    email: primary?.email.toLowerCase() ?? null,
    emailVerified: Boolean(primary?.verified),
    name: user.name ?? user.login,
  }
}

const googleIdentity = async (
  config: NonNullable<OAuthSettings['google']>,
  idToken: string,
  nonce: string | null,
): Promise<ProviderIdentity> => {
  const keys = createRemoteJWKSet(new URL(config.jwksUrl))
  const { payload: claims } = await jwtVerify(idToken, keys, { issuer: config.issuer, audience: config.clientId })
  if (!nonce || claims.nonce !== nonce) throw new Error('ID token nonce does not match')
  return {
    subject: String(claims.sub),
    email: typeof claims.email === 'string' ? claims.email.toLowerCase() : null,
    emailVerified: claims.email_verified === true,
    name: typeof claims.name === 'string' ? claims.name : null,
  }
}

/**
 * The account a provider identity signs in as: the one it is linked to; else the account with that
 * email, which a provider-verified email takes over when it is still unverified (as a magic link
 * would: see proveOwnership); else a new customer account. Only an email the provider verified is
 * trusted. Throws a ServiceError whose code becomes the error page's.
 */
const accountFor = async (payload: Payload, provider: OAuthProviderName, identity: ProviderIdentity): Promise<User> =>
  inTransaction(payload, async (req) => {
    const linked = (
      await payload.find({
        collection: 'oauth_identities',
        where: { and: [{ provider: { equals: provider } }, { subject: { equals: identity.subject } }] },
        limit: 1,
        depth: 1,
        req,
        overrideAccess: true,
      })
    ).docs[0]
    if (linked && typeof linked.user === 'object') {
      if (!linked.user.emailVerified)
        throw new ServiceError(400, 'account_unverified', 'This account has no confirmed email address yet.')
      return linked.user
    }
    if (!identity.email) throw new ServiceError(400, 'oauth_no_email', 'The provider did not share an email address.')
    if (!identity.emailVerified)
      throw new ServiceError(400, 'oauth_email_unverified', 'The provider has not verified this email address.')
    const existing = (
      await payload.find({
        collection: 'users',
        where: { email: { equals: identity.email } },
        limit: 1,
        depth: 0,
        req,
        overrideAccess: true,
      })
    ).docs[0]
    const user = existing
      ? await proveOwnership(req, existing)
      : await payload.create({
          collection: 'users',
          data: {
            email: identity.email,
            name: identity.name ?? undefined,
            roles: ['customer'],
            emailVerified: true,
            password: randomPassword(),
          },
          req,
          overrideAccess: true,
          context: { [RANDOM_PASSWORD]: true },
        })
    await payload.create({
      collection: 'oauth_identities',
      data: { provider, subject: identity.subject, email: identity.email, user: user.id },
      req,
      overrideAccess: true,
    })
    return user
  })

/**
 * The provider sent the browser back: check `state` against the cookie, redeem the code with the
 * PKCE verifier, read the verified identity, and find or create the account. Null when these are not
 * OAuth parameters.
 */
export const finishOAuth = async (
  payload: Payload,
  settings: OAuthSettings,
  params: URLSearchParams,
  stateCookie: string | undefined,
): Promise<{ user: User; next: string | null } | null> => {
  if (!params.has('state') && !params.has('code')) return null
  const pending = readPending(settings, stateCookie)
  const state = params.get('state') ?? ''
  if (
    !pending ||
    pending.state.length !== state.length ||
    !crypto.timingSafeEqual(Buffer.from(pending.state), Buffer.from(state))
  ) {
    throw new ServiceError(400, 'invalid_state', 'This sign-in did not start here, or took too long.')
  }
  if (params.get('error')) throw new ServiceError(400, 'oauth_denied', 'The sign-in was cancelled at the provider.')
  const code = params.get('code')
  if (!code) throw new ServiceError(400, 'invalid_request', 'The provider sent no code.')
  const config = settings[pending.provider]
  if (!config) throw new ServiceError(404, 'unknown_provider', 'There is no such sign-in provider.')
  let identity: ProviderIdentity
  try {
    const client = new OAuth2Client(config.clientId, config.clientSecret, redirectUri(settings))
    const tokens = await client.validateAuthorizationCode(config.tokenUrl, code, pending.verifier)
    // GitHub reports a bad code as 200 {error}: accessToken() then throws.
    identity =
      pending.provider === 'github'
        ? await githubIdentity(settings.github!, tokens.accessToken())
        : await googleIdentity(settings.google!, tokens.idToken(), pending.nonce)
  } catch {
    throw new ServiceError(400, 'oauth_failed', 'The provider did not confirm this sign-in. Please try again.')
  }
  return { user: await accountFor(payload, pending.provider, identity), next: pending.next }
}

import type { AuthorizationCode, DiscordHost } from './context'
import { randomToken } from './tokens'

const CODE_LIFETIME_MS = 10 * 60 * 1000

/** BASE64URL(SHA-256(verifier)) without padding is always 43 characters. */
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/

/** The scopes Discord lets a web application ask for here; the feature needs `identify` and `guilds.join`. */
const KNOWN_SCOPES = new Set(['identify', 'email', 'guilds', 'guilds.join', 'guilds.members.read', 'connections'])

/**
 * An authorization request Discord shows no consent page for: it answers with an error page rather
 * than redirecting, so an unregistered redirect_uri is never sent anything.
 */
export class InvalidAuthorizationRequest extends Error {
  override name = 'InvalidAuthorizationRequest'
}

/** An authorization request that passed Discord's checks. */
export type AuthorizationRequest = {
  redirectUri: string
  /** Echoed back exactly; a request without one gets none back. */
  state?: string
  scopes: string[]
  codeChallenge?: string
}

/** With no redirect URI registered, any http(s) one is accepted, so development needs no setup. */
const acceptsRedirect = (host: DiscordHost, redirectUri: string): boolean => {
  if (host.app.redirectUris.size > 0) return host.app.redirectUris.has(redirectUri)
  try {
    return ['http:', 'https:'].includes(new URL(redirectUri).protocol)
  } catch {
    return false
  }
}

/** The client and redirect_uri are checked first: until they are known good there is nowhere to redirect to. */
export const readAuthorizationRequest = (host: DiscordHost, params: URLSearchParams): AuthorizationRequest => {
  const clientId = params.get('client_id')
  if (clientId !== host.app.clientId)
    throw new InvalidAuthorizationRequest(`Unknown Application: ${clientId ?? '(none)'}.`)
  const redirectUri = params.get('redirect_uri')
  if (redirectUri === null || !acceptsRedirect(host, redirectUri)) {
    throw new InvalidAuthorizationRequest(`Invalid OAuth2 redirect_uri: ${redirectUri ?? '(none)'}.`)
  }
  const responseType = params.get('response_type')
  if (responseType !== 'code') {
    throw new InvalidAuthorizationRequest(
      `Invalid response_type: ${responseType ?? '(none)'}; the stand-in takes code.`,
    )
  }
  const scopes = [...new Set((params.get('scope') ?? '').split(' ').filter(Boolean))]
  const unknown = scopes.find((scope) => !KNOWN_SCOPES.has(scope))
  if (unknown !== undefined) throw new InvalidAuthorizationRequest(`Invalid scope: ${unknown}.`)
  if (!scopes.includes('identify')) throw new InvalidAuthorizationRequest('The scope must include identify.')
  const codeChallenge = params.get('code_challenge') ?? undefined
  if (codeChallenge !== undefined) {
    const method = params.get('code_challenge_method')
    if (method !== 'S256') {
      throw new InvalidAuthorizationRequest(`code_challenge_method must be S256, not ${method ?? '(none)'}.`)
    }
    if (!S256_CHALLENGE.test(codeChallenge)) {
      throw new InvalidAuthorizationRequest('code_challenge must be the base64url SHA-256 of the code_verifier.')
    }
  }
  return { redirectUri, state: params.get('state') ?? undefined, scopes, codeChallenge }
}

const redirectBack = (request: AuthorizationRequest, params: Record<string, string>): string => {
  const target = new URL(request.redirectUri)
  for (const [name, value] of Object.entries(params)) target.searchParams.set(name, value)
  if (request.state !== undefined) target.searchParams.set('state', request.state)
  return target.toString()
}

/** "Authorize" signed in as `userId`: a code for that user, and the redirect that carries it. */
export const approvedRedirect = (host: DiscordHost, request: AuthorizationRequest, userId: string): string => {
  const user = host.users.get(userId)
  if (!user || user.bot) throw new InvalidAuthorizationRequest(`No user ${userId} can sign in.`)
  const code: AuthorizationCode = {
    code: randomToken(),
    redirectUri: request.redirectUri,
    userId,
    scopes: request.scopes,
    codeChallenge: request.codeChallenge,
    expiresAt: new Date(host.now().getTime() + CODE_LIFETIME_MS),
    used: false,
  }
  host.codes.set(code.code, code)
  return redirectBack(request, { code: code.code })
}

/** "Cancel": Discord sends the standard OAuth2 denial back, with its description. */
export const deniedRedirect = (request: AuthorizationRequest): string =>
  redirectBack(request, {
    error: 'access_denied',
    error_description: 'The resource owner or authorization server denied the request',
  })

import crypto from 'node:crypto'

import type { OAuthHost } from './context'
import type { AuthorizationCode, OAuthProvider } from './types'

const CODE_LIFETIME_MS = 10 * 60 * 1000

/** BASE64URL(SHA-256(verifier)) without padding is always 43 characters; a hex digest is a client bug. */
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/

/**
 * An authorization request the provider shows no consent page for: it answers with an error page
 * rather than redirecting, so an unregistered redirect_uri is never sent anything.
 */
export class InvalidAuthorizationRequest extends Error {
  override name = 'InvalidAuthorizationRequest'
}

/** An authorization request that passed the provider's checks. */
export type AuthorizationRequest = {
  provider: OAuthProvider
  clientId: string
  redirectUri: string
  /** Echoed back exactly; optional in OAuth, so a request without one gets none back. */
  state?: string
  scopes: string[]
  codeChallenge: string
  nonce?: string
}

/** GitHub separates scopes with spaces or commas, Google with spaces. */
const scopesIn = (scope: string | null): string[] => [...new Set((scope ?? '').split(/[\s,]+/).filter(Boolean))]

/** The client and redirect_uri are checked first: until they are known good there is nowhere to redirect to. */
export const readAuthorizationRequest = (
  host: OAuthHost,
  provider: OAuthProvider,
  params: URLSearchParams,
): AuthorizationRequest => {
  const client = host.clients[provider]
  const clientId = params.get('client_id')
  if (clientId !== client.clientId) throw new InvalidAuthorizationRequest(`Unknown client_id: ${clientId ?? '(none)'}.`)
  const redirectUri = params.get('redirect_uri')
  if (redirectUri === null || !client.redirectUris.includes(redirectUri)) {
    throw new InvalidAuthorizationRequest(`redirect_uri ${redirectUri ?? '(none)'} is not registered for ${clientId}.`)
  }
  const responseType = params.get('response_type')
  if (responseType !== 'code') {
    throw new InvalidAuthorizationRequest(`response_type must be code, not ${responseType ?? '(none)'}.`)
  }
  const method = params.get('code_challenge_method')
  if (method !== 'S256') {
    throw new InvalidAuthorizationRequest(`code_challenge_method must be S256, not ${method ?? '(none)'}.`)
  }
  const codeChallenge = params.get('code_challenge')
  if (codeChallenge === null || !S256_CHALLENGE.test(codeChallenge)) {
    throw new InvalidAuthorizationRequest('code_challenge must be the base64url SHA-256 of the code_verifier.')
  }
  const scopes = scopesIn(params.get('scope'))
  const nonce = params.get('nonce') ?? undefined
  if (provider === 'google') {
    if (!scopes.includes('openid')) throw new InvalidAuthorizationRequest('scope must include openid.')
    if (!nonce) throw new InvalidAuthorizationRequest('nonce is required.')
  }
  return { provider, clientId, redirectUri, state: params.get('state') ?? undefined, scopes, codeChallenge, nonce }
}

/** GitHub's codes are 20 hex characters; Google's contain a `/`, which the redirect percent-encodes. */
const newCode = (provider: OAuthProvider): string =>
  provider === 'github' ? crypto.randomBytes(10).toString('hex') : `4/0${crypto.randomBytes(48).toString('base64url')}`

const redirectBack = (request: AuthorizationRequest, params: Record<string, string>): string => {
  const target = new URL(request.redirectUri)
  for (const [name, value] of Object.entries(params)) target.searchParams.set(name, value)
  if (request.state !== undefined) target.searchParams.set('state', request.state)
  return target.toString()
}

/** The user approves: a code for the account signed in right now, and the redirect that carries it. */
export const approvedRedirect = (host: OAuthHost, request: AuthorizationRequest): string => {
  const code: AuthorizationCode = {
    code: newCode(request.provider),
    provider: request.provider,
    clientId: request.clientId,
    redirectUri: request.redirectUri,
    codeChallenge: request.codeChallenge,
    scopes: request.scopes,
    account: { ...host.accounts[request.provider] },
    expiresAt: new Date(host.now().getTime() + CODE_LIFETIME_MS),
    nonce: request.nonce,
    used: false,
  }
  host.state.codes.set(code.code, code)
  return redirectBack(request, { code: code.code })
}

/** GitHub explains a denial; Google only names it. */
const DENIALS: Record<OAuthProvider, Record<string, string>> = {
  github: {
    error: 'access_denied',
    error_description: 'The user has denied your application access.',
    error_uri:
      'https://docs.github.com/apps/managing-oauth-apps/troubleshooting-authorization-request-errors/#access-denied',
  },
  google: { error: 'access_denied' },
}

export const deniedRedirect = (request: AuthorizationRequest): string =>
  redirectBack(request, DENIALS[request.provider])

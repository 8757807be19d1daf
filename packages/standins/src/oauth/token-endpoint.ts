import crypto from 'node:crypto'

import express, { type Request, type Response } from 'express'

import { GOOGLE_TOKEN_LIFETIME_S, issueAccessToken } from './access-tokens'
import type { OAuthHost } from './context'
import { PATHS, PROVIDERS } from './endpoints'
import { googleIdToken } from './id-token'
import type { AccessToken, AuthorizationCode, OAuthProvider } from './types'

type ExchangeFailure =
  'invalid_client' | 'unsupported_grant_type' | 'bad_code' | 'redirect_uri_mismatch' | 'bad_verifier'

type TokenErrorAnswer = { status: number; body: Record<string, string> }

const GITHUB_TOKEN_ERRORS_DOCS =
  'https://docs.github.com/apps/managing-oauth-apps/troubleshooting-oauth-app-access-token-request-errors'

const GITHUB_BAD_CODE: TokenErrorAnswer = {
  status: 200,
  body: {
    error: 'bad_verification_code',
    error_description: 'The code passed is incorrect or expired.',
    error_uri: `${GITHUB_TOKEN_ERRORS_DOCS}/#bad-verification-code`,
  },
}

/**
 * Google answers as RFC 6749 §5.2 says. GitHub answers a code it does not accept with 200 and an error
 * body, which a client has to look for. Wrong client credentials get RFC 6749's 401 from both, although
 * GitHub itself answers them with 200 and `incorrect_client_credentials`.
 */
const TOKEN_ERRORS: Record<OAuthProvider, Record<ExchangeFailure, TokenErrorAnswer>> = {
  github: {
    invalid_client: {
      status: 401,
      body: { error: 'invalid_client', error_description: 'The client_id and/or client_secret passed are incorrect.' },
    },
    unsupported_grant_type: { status: 200, body: { error: 'unsupported_grant_type' } },
    bad_code: GITHUB_BAD_CODE,
    bad_verifier: GITHUB_BAD_CODE,
    redirect_uri_mismatch: {
      status: 200,
      body: {
        error: 'redirect_uri_mismatch',
        error_description: 'The redirect_uri MUST match the registered callback URL for this application.',
        error_uri: `${GITHUB_TOKEN_ERRORS_DOCS}/#redirect-uri-mismatch2`,
      },
    },
  },
  google: {
    invalid_client: { status: 401, body: { error: 'invalid_client', error_description: 'Unauthorized' } },
    unsupported_grant_type: {
      status: 400,
      body: { error: 'unsupported_grant_type', error_description: 'Invalid grant_type.' },
    },
    bad_code: { status: 400, body: { error: 'invalid_grant', error_description: 'Bad Request' } },
    bad_verifier: { status: 400, body: { error: 'invalid_grant', error_description: 'Invalid code verifier.' } },
    redirect_uri_mismatch: {
      status: 400,
      body: { error: 'invalid_grant', error_description: 'redirect_uri does not match the authorization request.' },
    },
  },
}

type ClientCredentials = { clientId: string; clientSecret: string }

/** HTTP Basic when the request carries it (arctic does), else client_id and client_secret in the body. */
const presentedCredentials = (req: Request, form: URLSearchParams): ClientCredentials & { basic: boolean } => {
  const encoded = /^Basic\s+(\S+)$/i.exec(req.get('authorization')?.trim() ?? '')?.[1]
  if (encoded === undefined) {
    return { clientId: form.get('client_id') ?? '', clientSecret: form.get('client_secret') ?? '', basic: false }
  }
  const decoded = Buffer.from(encoded, 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  if (colon < 0) return { clientId: '', clientSecret: '', basic: true }
  return { clientId: decoded.slice(0, colon), clientSecret: decoded.slice(colon + 1), basic: true }
}

const formDecoded = (value: string): string => {
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '))
  } catch {
    return value
  }
}

/** RFC 6749 form-encodes Basic credentials before base64; arctic does not, so both spellings are accepted. */
const sameCredential = (presented: string, registered: string): boolean =>
  presented === registered || formDecoded(presented) === registered

const s256 = (verifier: string): string => crypto.createHash('sha256').update(verifier).digest('base64url')

/** GitHub's documentation leaves grant_type and redirect_uri out of the token request; Google requires both. */
const exchangeCode = (
  host: OAuthHost,
  provider: OAuthProvider,
  form: URLSearchParams,
  credentials: ClientCredentials,
): { code: AuthorizationCode; token: AccessToken } | ExchangeFailure => {
  const client = host.clients[provider]
  if (credentials.clientId !== client.clientId || !sameCredential(credentials.clientSecret, client.clientSecret)) {
    return 'invalid_client'
  }
  const grantType = form.get('grant_type')
  if (grantType !== 'authorization_code' && !(provider === 'github' && grantType === null)) {
    return 'unsupported_grant_type'
  }
  const code = host.state.codes.get(form.get('code') ?? '')
  if (!code || code.provider !== provider || code.clientId !== credentials.clientId) return 'bad_code'
  if (code.used) {
    if (code.accessToken !== undefined) host.state.tokens.delete(code.accessToken)
    return 'bad_code'
  }
  code.used = true
  if (code.expiresAt <= host.now()) return 'bad_code'
  const redirectUri = form.get('redirect_uri')
  if (redirectUri !== code.redirectUri && !(provider === 'github' && redirectUri === null)) {
    return 'redirect_uri_mismatch'
  }
  if (s256(form.get('code_verifier') ?? '') !== code.codeChallenge) return 'bad_verifier'
  return { code, token: issueAccessToken(host, code) }
}

const tokenResponse = async (
  host: OAuthHost,
  code: AuthorizationCode,
  token: AccessToken,
): Promise<Record<string, string | number>> =>
  code.provider === 'github'
    ? { access_token: token.token, token_type: 'bearer', scope: token.scopes.join(',') }
    : {
        access_token: token.token,
        expires_in: GOOGLE_TOKEN_LIFETIME_S,
        id_token: await googleIdToken(host, code, token.token),
        scope: token.scopes.join(' '),
        token_type: 'Bearer',
      }

/** GitHub answers form-encoded unless asked for JSON, which arctic does. */
const send = (
  req: Request,
  res: Response,
  provider: OAuthProvider,
  status: number,
  body: Record<string, string | number>,
) => {
  res.status(status).set({ 'cache-control': 'no-store', pragma: 'no-cache' })
  if (provider === 'github' && !req.get('accept')?.includes('application/json')) {
    const encoded = new URLSearchParams(Object.entries(body).map(([name, value]) => [name, String(value)]))
    res.type('application/x-www-form-urlencoded').send(encoded.toString())
    return
  }
  res.json(body)
}

/** Both providers' token endpoints: authorization codes for access tokens (and, from Google, an ID token). */
export const tokenEndpoints = (host: OAuthHost): express.Router => {
  const router = express.Router()
  const readForm = express.text({ type: 'application/x-www-form-urlencoded' })

  for (const provider of PROVIDERS) {
    router.post(PATHS[provider].token, readForm, async (req, res) => {
      const form = new URLSearchParams(typeof req.body === 'string' ? req.body : '')
      const credentials = presentedCredentials(req, form)
      const outcome = exchangeCode(host, provider, form, credentials)
      if (typeof outcome === 'string') {
        const { status, body } = TOKEN_ERRORS[provider][outcome]
        if (status === 401 && credentials.basic) res.set('www-authenticate', 'Basic realm="OAuth stand-in"')
        send(req, res, provider, status, body)
        return
      }
      send(req, res, provider, 200, await tokenResponse(host, outcome.code, outcome.token))
    })
  }

  return router
}

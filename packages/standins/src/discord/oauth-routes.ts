import crypto from 'node:crypto'

import type { RESTPostOAuth2AccessTokenResult } from 'discord-api-types/v10'
import express, { type Request, type Response } from 'express'

import type { DiscordHost, Grant } from './context'
import { unauthorized } from './errors'
import { userObject } from './objects'
import { ACCESS_TOKEN_LIFETIME_S, grantOfAccessToken, issueGrant, presentedToken, revokeGrant } from './tokens'

type TokenFailure =
  'invalid_client' | 'unsupported_grant_type' | 'bad_code' | 'bad_redirect' | 'missing_verifier' | 'bad_refresh_token'

/**
 * Discord's token endpoint errors: RFC 6749's codes, with the descriptions Discord is seen to send. A
 * wrong verifier gets the answer of a wrong code: Discord documents no answer of its own for it.
 */
const TOKEN_ERRORS: Record<TokenFailure, { status: number; body: Record<string, string> }> = {
  invalid_client: { status: 401, body: { error: 'invalid_client' } },
  unsupported_grant_type: { status: 400, body: { error: 'unsupported_grant_type' } },
  bad_code: { status: 400, body: { error: 'invalid_grant', error_description: 'Invalid "code" in request.' } },
  bad_redirect: {
    status: 400,
    body: { error: 'invalid_grant', error_description: 'Invalid "redirect_uri" in request.' },
  },
  missing_verifier: { status: 400, body: { error: 'invalid_request', error_description: 'Missing "code_verifier"' } },
  bad_refresh_token: {
    status: 400,
    body: { error: 'invalid_grant', error_description: 'Invalid "refresh_token" in request.' },
  },
}

/** HTTP Basic when the request carries it (arctic does), else client_id and client_secret in the body. */
const clientAuthenticated = (host: DiscordHost, req: Request, form: URLSearchParams): boolean => {
  const encoded = /^Basic\s+(\S+)$/i.exec(req.get('authorization')?.trim() ?? '')?.[1]
  let presented: [string, string]
  if (encoded === undefined) {
    presented = [form.get('client_id') ?? '', form.get('client_secret') ?? '']
  } else {
    const decoded = Buffer.from(encoded, 'base64').toString('utf8')
    const colon = decoded.indexOf(':')
    presented = colon < 0 ? ['', ''] : [decoded.slice(0, colon), decoded.slice(colon + 1)]
  }
  return presented[0] === host.app.clientId && presented[1] === host.app.clientSecret
}

const s256 = (verifier: string): string => crypto.createHash('sha256').update(verifier).digest('base64url')

/** Codes are single use: the first attempt uses one up whatever its outcome, and a replay revokes its tokens. */
const exchangeCode = (host: DiscordHost, form: URLSearchParams): Grant | TokenFailure => {
  const code = host.codes.get(form.get('code') ?? '')
  if (!code) return 'bad_code'
  if (code.used) {
    if (code.grant) revokeGrant(host, code.grant)
    return 'bad_code'
  }
  code.used = true
  if (code.expiresAt <= host.now()) return 'bad_code'
  if (form.get('redirect_uri') !== code.redirectUri) return 'bad_redirect'
  if (code.codeChallenge !== undefined) {
    const verifier = form.get('code_verifier')
    if (verifier === null) return 'missing_verifier'
    if (s256(verifier) !== code.codeChallenge) return 'bad_code'
  }
  code.grant = issueGrant(host, code.userId, code.scopes)
  return code.grant
}

/** A refresh rotates both tokens: the old access and refresh token stop working. */
const refresh = (host: DiscordHost, form: URLSearchParams): Grant | TokenFailure => {
  const previous = host.refreshTokens.get(form.get('refresh_token') ?? '')
  if (!previous) return 'bad_refresh_token'
  return issueGrant(host, previous.userId, previous.scopes, previous)
}

const tokenResult = (grant: Grant): RESTPostOAuth2AccessTokenResult => ({
  token_type: 'Bearer',
  access_token: grant.accessToken,
  expires_in: ACCESS_TOKEN_LIFETIME_S,
  refresh_token: grant.refreshToken,
  scope: grant.scopes.join(' '),
})

const readForm = express.text({ type: 'application/x-www-form-urlencoded' })

const formOf = (req: Request): URLSearchParams => new URLSearchParams(typeof req.body === 'string' ? req.body : '')

const fail = (res: Response, failure: TokenFailure): void => {
  const { status, body } = TOKEN_ERRORS[failure]
  res.status(status).json(body)
}

/**
 * Discord's OAuth2 token and revocation endpoints (form bodies, client authentication) and the
 * `users/@me` a token reads its user with. Mounted under `/api/v10` and under the unversioned `/api`,
 * which arctic's Discord provider uses.
 */
export const oauthRoutes = (host: DiscordHost): express.Router => {
  const router = express.Router()

  router.post('/oauth2/token', readForm, (req, res) => {
    const form = formOf(req)
    if (!clientAuthenticated(host, req, form)) {
      fail(res, 'invalid_client')
      return
    }
    const grantType = form.get('grant_type')
    const outcome =
      grantType === 'authorization_code'
        ? exchangeCode(host, form)
        : grantType === 'refresh_token'
          ? refresh(host, form)
          : 'unsupported_grant_type'
    if (typeof outcome === 'string') fail(res, outcome)
    else res.json(tokenResult(outcome))
  })

  // RFC 7009: an unknown or already revoked token is answered like a revoked one, so nothing leaks.
  router.post('/oauth2/token/revoke', readForm, (req, res) => {
    const form = formOf(req)
    if (!clientAuthenticated(host, req, form)) {
      fail(res, 'invalid_client')
      return
    }
    const token = form.get('token')
    if (!token) {
      res.status(400).json({ error: 'invalid_request', error_description: 'Missing "token"' })
      return
    }
    const grant = host.accessTokens.get(token) ?? host.refreshTokens.get(token)
    if (grant) revokeGrant(host, grant)
    res.json({})
  })

  // The user an OAuth2 token (with `identify`) belongs to; a bot token reads the bot's own user.
  // @discordjs/rest percent-encodes the `@` (`/users/%40me`); Discord answers both spellings.
  router.get(['/users/@me', '/users/%40me'], (req, res) => {
    const header = req.get('authorization')
    const grant = grantOfAccessToken(host, presentedToken(header, 'Bearer'))
    const userId =
      grant?.scopes.includes('identify') === true
        ? grant.userId
        : presentedToken(header, 'Bot') === host.botToken
          ? host.botUserId
          : undefined
    const user = userId === undefined ? undefined : host.users.get(userId)
    if (!user) throw unauthorized()
    res.json(userObject(user))
  })

  return router
}

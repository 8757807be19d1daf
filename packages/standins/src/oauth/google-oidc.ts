import express from 'express'

import { presentedAccessToken } from './access-tokens'
import type { OAuthHost } from './context'
import { PATHS } from './endpoints'
import { profileClaims } from './id-token'

/** What a client reads to configure itself, trimmed to what the stand-in serves. */
const discoveryDocument = (host: OAuthHost) => {
  const { google } = host.endpoints
  return {
    issuer: google.issuer,
    authorization_endpoint: google.authorize,
    token_endpoint: google.token,
    userinfo_endpoint: google.userinfo,
    jwks_uri: google.jwks,
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: ['RS256'],
    scopes_supported: ['openid', 'email', 'profile'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    claims_supported: ['aud', 'email', 'email_verified', 'exp', 'iat', 'iss', 'name', 'sub', 'nonce', 'at_hash'],
    code_challenge_methods_supported: ['S256'],
  }
}

/** Google's OpenID Connect endpoints besides authorization and token: discovery, keys and userinfo. */
export const googleOidc = (host: OAuthHost): express.Router => {
  const router = express.Router()

  router.get(PATHS.google.discovery, (_req, res) => {
    res.json(discoveryDocument(host))
  })

  router.get(PATHS.google.jwks, (_req, res) => {
    res.json({ keys: [host.signingKey.publicJwk] })
  })

  router.get(PATHS.google.userinfo, (req, res) => {
    const token = presentedAccessToken(host, 'google', req.get('authorization'), ['bearer'])
    if (!token) {
      res
        .status(401)
        .set('www-authenticate', `Bearer realm="${host.endpoints.google.issuer}", error="invalid_token"`)
        .json({ error: 'invalid_request', error_description: 'Invalid Credentials' })
      return
    }
    res.json({ sub: token.account.id, ...profileClaims(token.account, token.scopes) })
  })

  return router
}

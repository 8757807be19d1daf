/**
 * Import FIRST in a test file that signs in with GitHub or Google: starts the OAuth provider stand-in
 * and points the OAUTH_* settings at it before anything reads the Payload config.
 */
import { afterAll } from 'vitest'

import { startOAuthStandIn } from '@starter-kit/standins/oauth'

const REDIRECT = 'http://localhost:3000/auth/callback'
export const oauth = await startOAuthStandIn({
  github: { clientId: 'gh-client', clientSecret: 'gh-secret+/%', redirectUris: [REDIRECT] },
  google: { clientId: 'google-client.apps', clientSecret: 'google-secret', redirectUris: [REDIRECT] },
})

Object.assign(process.env, {
  OAUTH_GITHUB_CLIENT_ID: 'gh-client',
  OAUTH_GITHUB_CLIENT_SECRET: 'gh-secret+/%',
  OAUTH_GITHUB_AUTHORIZE_URL: oauth.endpoints.github.authorize,
  OAUTH_GITHUB_TOKEN_URL: oauth.endpoints.github.token,
  OAUTH_GITHUB_API_URL: oauth.endpoints.github.userApi.replace(/\/user$/, ''),
  OAUTH_GOOGLE_CLIENT_ID: 'google-client.apps',
  OAUTH_GOOGLE_CLIENT_SECRET: 'google-secret',
  OAUTH_GOOGLE_AUTHORIZE_URL: oauth.endpoints.google.authorize,
  OAUTH_GOOGLE_TOKEN_URL: oauth.endpoints.google.token,
  OAUTH_GOOGLE_ISSUER: oauth.endpoints.google.issuer,
  OAUTH_GOOGLE_JWKS_URL: oauth.endpoints.google.jwks,
})

afterAll(() => oauth.close())

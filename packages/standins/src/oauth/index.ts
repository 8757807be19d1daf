/**
 * The OAuth stand-in: GitHub's and Google's sign-in (OAuth 2.0 authorization code flow with PKCE, and
 * OpenID Connect for Google) for integration tests and offline development. The service's real OAuth
 * client talks to it over HTTP; its consent page lets a developer sign in in the browser.
 */
export { startOAuthStandIn } from './server'
export { DEFAULT_ACCOUNTS } from './accounts'

export type { OAuthClientRegistration, OAuthProvider, OAuthStandIn } from './types'

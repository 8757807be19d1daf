export type OAuthProvider = 'github' | 'google'

/**
 * Who signs in. `id` is GitHub's numeric user id (as a string) or Google's `sub`; `login` is the GitHub
 * username, derived from the email when left out.
 */
export type OAuthAccount = { id: string; email: string; emailVerified: boolean; name?: string; login?: string }

/** An OAuth app as registered with the provider: the service's id, secret and callback URLs. */
export type OAuthClientRegistration = { clientId: string; clientSecret: string; redirectUris: string[] }

export type OAuthStandInOptions = {
  /** Default 0: any free port. The server binds 127.0.0.1 only. */
  port?: number
  github: OAuthClientRegistration
  google: OAuthClientRegistration
  log?: (line: string) => void
  /** The clock codes, tokens and ID tokens are dated by; tests move it to make them expire. Default the real one. */
  now?: () => Date
}

/** A code handed out at approval, bound to everything the token request must repeat or prove. */
export type AuthorizationCode = {
  code: string
  provider: OAuthProvider
  clientId: string
  redirectUri: string
  /** BASE64URL(SHA-256(code_verifier)), as sent with `code_challenge_method=S256`. */
  codeChallenge: string
  /** Goes into Google's ID token, where the service checks it against its session; GitHub ignores it. */
  nonce?: string
  scopes: string[]
  /** The account signed in when the code was approved; later `setAccount` calls do not change it. */
  account: OAuthAccount
  expiresAt: Date
  /** Set by the first exchange attempt whatever its outcome, so a guessed code_verifier cannot be retried. */
  used: boolean
  /** The token the code was exchanged for; replaying the code revokes it (RFC 6749 §4.1.2). */
  accessToken?: string
}

export type AccessToken = {
  token: string
  provider: OAuthProvider
  clientId: string
  account: OAuthAccount
  scopes: string[]
  /** Google's expire after an hour; a GitHub OAuth app's never do. */
  expiresAt?: Date
}

type RecordedRequest = { method: string; path: string }

export type OAuthStandInState = {
  codes: Map<string, AuthorizationCode>
  tokens: Map<string, AccessToken>
  requests: RecordedRequest[]
}

export type OAuthEndpoints = {
  github: { authorize: string; token: string; userApi: string; emailsApi: string }
  google: { authorize: string; token: string; issuer: string; jwks: string; userinfo: string; discovery: string }
}

export type OAuthStandIn = {
  url: string
  port: number
  close(): Promise<void>
  /** The account the provider's next approval signs in as; each starts as its DEFAULT_ACCOUNTS entry. */
  setAccount(provider: OAuthProvider, account: OAuthAccount): void
  /** Where the service's OAuth client points instead of github.com and accounts.google.com. */
  endpoints: OAuthEndpoints
  /**
   * What a browser does on the consent page: approves (or denies) the authorization URL the service
   * redirected to and returns the redirect back to the service: its redirect_uri with `code` and
   * `state`, or with `error=access_denied` and `state`. Rejects, like the page's 400, an authorization
   * request the provider would not show a consent page for.
   */
  approve(authorizationUrl: string, options?: { deny?: boolean }): Promise<string>
  state: OAuthStandInState
}

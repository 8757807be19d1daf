import type { SigningKey } from './id-token'
import type { OAuthAccount, OAuthClientRegistration, OAuthEndpoints, OAuthProvider, OAuthStandInState } from './types'

/** What the routes and test controls of one stand-in share. */
export type OAuthHost = {
  url: string
  endpoints: OAuthEndpoints
  clients: Record<OAuthProvider, OAuthClientRegistration>
  /** The account each provider's next approval signs in as. */
  accounts: Record<OAuthProvider, OAuthAccount>
  /** Signs Google's ID tokens; its public half is served as the JWKS. */
  signingKey: SigningKey
  state: OAuthStandInState
  now: () => Date
}

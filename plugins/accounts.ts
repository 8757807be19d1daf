import type { CollectionConfig, Config, Plugin } from 'payload'

import { ApiKeys } from '../collections/ApiKeys'
import { AuthTokens } from '../collections/AuthTokens'
import { OAuthIdentities } from '../collections/OAuthIdentities'
import { oauthStartEndpoint } from '../endpoints/oauth-start'
import type { OAuthSettings } from '../src/auth/oauth'
import { createUsersCollection, type UsersOptions } from '../collections/Users'
import { forgotPasswordEndpoint, signUpEndpoint } from '../endpoints/account'
import { magicLinkEndpoint } from '../endpoints/magic-link'
import { accountEmailEndpoint } from '../endpoints/account-email'
import { createApiKeyEndpoint, listApiKeysEndpoint, revokeApiKeyEndpoint } from '../endpoints/account-api-keys'
import { graphQLWithJoinAccess } from '../src/access/graphql-join-access'
import { hotPathJwtStrategy } from '../src/auth/account-read'
import { apiKeyRefusalResponse, withApiKeys } from '../src/auth/api-keys'
import { graphQLWithoutDuplicateAuth, withServiceAuthRoutes } from '../src/auth/payload-auth-routes'
import { resendConfirmationEndpoint } from '../endpoints/resend-confirmation'
import { pruneRateLimitsTask } from '../src/auth/rate-limit-prune'
import { sendEmailTask } from '../src/email/send-task'
import { withRuntime } from '../src/config/runtime'
import { DIRECT_PATHS } from '../src/server/direct'

/**
 * On the paths the host serves directly (DIRECT_PATHS), a session's token is checked by Payload's own
 * JWT strategy with the account read in one statement (src/auth/account-read.ts), after the API-key
 * strategy and before Payload's, which decides everywhere else and whenever this one finds no user.
 */
const withHotPathJwt = (users: CollectionConfig): CollectionConfig => {
  const auth = typeof users.auth === 'object' ? users.auth : {}
  return { ...users, auth: { ...auth, strategies: [...(auth.strategies ?? []), hotPathJwtStrategy(DIRECT_PATHS)] } }
}

export type AccountsOptions = UsersOptions & { retryDelayMs: number; oauth: OAuthSettings }

/**
 * Accounts: the `users` auth collection (roles, lockout, cookies, personal API keys as an auth
 * strategy, the staff-only customer view) and the admin's user.
 */
export const accountsPlugin =
  (options: AccountsOptions): Plugin =>
  (config: Config): Config => ({
    ...config,
    admin: { ...config.admin, user: 'users' },
    // Server-only: /auth/callback (a Next route) reads the OAuth settings from here.
    custom: withRuntime(config, 'accounts', { oauth: options.oauth }),
    collections: [
      ...(config.collections ?? []),
      withServiceAuthRoutes(withHotPathJwt(withApiKeys(createUsersCollection(options))), options),
      AuthTokens,
      OAuthIdentities,
      ApiKeys,
    ],
    endpoints: [
      ...(config.endpoints ?? []),
      magicLinkEndpoint({ serverUrl: options.serverUrl, productName: options.productName }),
      oauthStartEndpoint(options.oauth),
      signUpEndpoint({ serverUrl: options.serverUrl, productName: options.productName }),
      forgotPasswordEndpoint({ serverUrl: options.serverUrl, productName: options.productName }),
      resendConfirmationEndpoint({ serverUrl: options.serverUrl, productName: options.productName }),
      accountEmailEndpoint({ serverUrl: options.serverUrl, productName: options.productName }),
      createApiKeyEndpoint,
      listApiKeysEndpoint,
      revokeApiKeyEndpoint,
    ],
    // GraphQL answers the customer view's joins to staff only, as REST does, and has no duplicate of the service's auth routes.
    graphQL: graphQLWithoutDuplicateAuth(graphQLWithJoinAccess(config.graphQL)),
    // After the service's error shape: a refused API key answers for the access error it caused.
    hooks: { ...config.hooks, afterError: [...(config.hooks?.afterError ?? []), apiKeyRefusalResponse] },
    // A locked account answers exactly like a wrong password (no existence oracle): the users hook
    // refuses locked accounts itself, and Payload's own lock message, should it surface, reads the same.
    i18n: {
      ...config.i18n,
      translations: {
        ...config.i18n?.translations,
        en: { ...config.i18n?.translations?.en, error: { userLocked: 'The email or password provided is incorrect.' } },
      },
    },
    jobs: {
      ...config.jobs,
      tasks: [...(config.jobs?.tasks ?? []), sendEmailTask(options.retryDelayMs), pruneRateLimitsTask],
    },
  })

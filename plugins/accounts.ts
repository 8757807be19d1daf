import type { Config, Plugin } from 'payload'

import { AuthTokens } from '../collections/AuthTokens'
import { createUsersCollection, type UsersOptions } from '../collections/Users'
import { magicLinkEndpoint } from '../endpoints/magic-link'
import { sendEmailTask } from '../src/email/send-task'

export type AccountsOptions = UsersOptions & { serverUrl: string; productName: string; retryDelayMs: number }

/** Accounts: the `users` auth collection (roles, lockout, cookies) and the admin's user. */
export const accountsPlugin =
  (options: AccountsOptions): Plugin =>
  (config: Config): Config => ({
    ...config,
    admin: { ...config.admin, user: 'users' },
    collections: [...(config.collections ?? []), createUsersCollection(options), AuthTokens],
    endpoints: [...(config.endpoints ?? []), magicLinkEndpoint({ serverUrl: options.serverUrl, productName: options.productName })],
    jobs: { ...config.jobs, tasks: [...(config.jobs?.tasks ?? []), sendEmailTask(options.retryDelayMs)] },
  })

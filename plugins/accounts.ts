import type { Config, Plugin } from 'payload'

import { createUsersCollection, type UsersOptions } from '../collections/Users'

export type AccountsOptions = UsersOptions

/** Accounts: the `users` auth collection (roles, lockout, cookies) and the admin's user. */
export const accountsPlugin =
  (options: AccountsOptions): Plugin =>
  (config: Config): Config => ({
    ...config,
    admin: { ...config.admin, user: 'users' },
    collections: [...(config.collections ?? []), createUsersCollection(options)],
  })

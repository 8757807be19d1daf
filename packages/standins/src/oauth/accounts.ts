import type { OAuthAccount, OAuthProvider } from './types'

/** Who each provider signs in as until a test calls `setAccount`. */
export const DEFAULT_ACCOUNTS: Record<OAuthProvider, OAuthAccount> = {
  github: {
    id: '5830041',
    login: 'octo-standin',
    email: 'octo@standin.example',
    emailVerified: true,
    name: 'Octo Stand-in',
  },
  google: {
    id: '104857600000000000001',
    email: 'ada@standin.example',
    emailVerified: true,
    name: 'Ada Stand-in',
  },
}

/** GitHub logins allow letters, digits and hyphens only. */
export const loginOf = (account: OAuthAccount): string =>
  account.login ?? (account.email.split('@')[0] ?? account.id).replace(/[^A-Za-z0-9-]/g, '-')

import type { OAuthEndpoints, OAuthProvider } from './types'

export const PROVIDERS: readonly OAuthProvider[] = ['github', 'google']

/** Each provider's endpoints under its own prefix, at the paths the real ones use where that fits. */
export const PATHS = {
  github: {
    authorize: '/github/login/oauth/authorize',
    token: '/github/login/oauth/access_token',
    userApi: '/github/api/user',
    emailsApi: '/github/api/user/emails',
  },
  google: {
    authorize: '/google/o/oauth2/v2/auth',
    token: '/google/token',
    issuer: '/google',
    jwks: '/google/jwks',
    userinfo: '/google/userinfo',
    discovery: '/google/.well-known/openid-configuration',
  },
} as const

const under = <Paths extends Record<string, string>>(url: string, paths: Paths): Record<keyof Paths, string> =>
  Object.fromEntries(Object.entries(paths).map(([name, path]) => [name, `${url}${path}`])) as Record<
    keyof Paths,
    string
  >

export const endpointsAt = (url: string): OAuthEndpoints => ({
  github: under(url, PATHS.github),
  google: under(url, PATHS.google),
})

import express, { type Request, type Response } from 'express'

import { presentedAccessToken } from './access-tokens'
import { loginOf } from './accounts'
import type { OAuthHost } from './context'
import { PATHS } from './endpoints'
import type { AccessToken, OAuthAccount } from './types'

const REST_DOCS = 'https://docs.github.com/rest'

/** GitHub's ids are numbers; an account whose id is not one keeps it as given. */
const githubId = (account: OAuthAccount): number | string =>
  /^\d+$/.test(account.id) ? Number(account.id) : account.id

/** GitHub lets only a verified address be public, so an unverified one shows as `email: null`. */
const userObject = (account: OAuthAccount) => ({
  login: loginOf(account),
  id: githubId(account),
  type: 'User',
  site_admin: false,
  name: account.name ?? null,
  email: account.emailVerified ? account.email : null,
})

const emailObjects = (account: OAuthAccount) => [
  {
    email: account.email,
    primary: true,
    verified: account.emailVerified,
    visibility: account.emailVerified ? 'public' : 'private',
  },
]

/** The emails endpoint needs the `user:email` scope, or `user`, which includes it. */
const mayReadEmails = (token: AccessToken): boolean =>
  token.scopes.includes('user:email') || token.scopes.includes('user')

/** The GitHub REST API's user endpoints, for the account a token was issued to. */
export const githubApi = (host: OAuthHost): express.Router => {
  const router = express.Router()

  const authenticated =
    (answer: (token: AccessToken, res: Response) => void) =>
    (req: Request, res: Response): void => {
      const token = presentedAccessToken(host, 'github', req.get('authorization'), ['bearer', 'token'])
      if (!token) {
        res.status(401).json({ message: 'Bad credentials', documentation_url: REST_DOCS, status: '401' })
        return
      }
      res.set('x-oauth-scopes', token.scopes.join(', '))
      answer(token, res)
    }

  router.get(
    PATHS.github.userApi,
    authenticated((token, res) => {
      res.json(userObject(token.account))
    }),
  )

  router.get(
    PATHS.github.emailsApi,
    authenticated((token, res) => {
      if (!mayReadEmails(token)) {
        res.status(404).json({ message: 'Not Found', documentation_url: `${REST_DOCS}/users/emails`, status: '404' })
        return
      }
      res.json(emailObjects(token.account))
    }),
  )

  return router
}

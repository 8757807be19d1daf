import { type CollectionConfig, type Config, type Endpoint, generatePayloadCookie, NotFound } from 'payload'
import { z } from 'zod'

import { endpoint } from '../http/endpoint'
import { ServiceError } from '../http/errors'
import { issueSession } from './issue-session'
import { completePasswordReset, requestPasswordReset } from './recovery'

type Options = { serverUrl: string; productName: string }

const notFound = () => new ServiceError(404, 'not_found', 'Not found.')

// PATCH: payload-auth-routes
/**
 * Payload's own auth routes on `users` that duplicate the service's operations. Left as Payload
 * serves them, `POST /api/users/forgot-password` sent its email before answering (a known email took
 * as long as the mail server, an unknown one a few milliseconds: an existence oracle), skipped the
 * service's queue, and `reset-password` set a password without the ownership rule. So:
 *
 * - `forgot-password` (the admin's "Forgot password?" form posts here) runs the service's own
 *   operation: the same rate limits, the email queued in the transaction that makes the token, and
 *   the same answer in the same time for known and unknown emails.
 * - `reset-password` (the admin's reset form) runs the service's own reset: single use, the account
 *   verified, every other session ended, then signed in as Payload's route would.
 * - `verify/:token` answers 404: accounts are confirmed by the service's link (/auth/callback),
 *   and the users collection has no Payload verification token to match.
 * - `unlock` stays Payload's: admins only (the users collection's `unlock` access), the admin's button.
 *
 * Custom endpoints come before Payload's in the collection's list, so these are the ones served.
 */
export const withServiceAuthRoutes = (users: CollectionConfig, options: Options): CollectionConfig => {
  const endpoints: Endpoint[] = [
    endpoint({
      path: '/forgot-password',
      method: 'post',
      body: z.object({ email: z.string().max(320) }),
      handler: async ({ req, body, address }) => {
        await requestPasswordReset(req.payload, body, { ...options, address })
        return { message: req.t('general:success') }
      },
    }),
    endpoint({
      path: '/reset-password',
      method: 'post',
      body: z.object({ token: z.string().max(200), password: z.string().max(1024) }),
      handler: async ({ req, body }) => {
        const userId = await completePasswordReset(req.payload, body.token, body.password)
        const { token } = await issueSession(req.payload, userId, { endOtherSessions: true })
        // The admin's form then reads the account through the cookie (fetchFullUser): only the id is needed here.
        const user = { id: userId }
        const cookie = generatePayloadCookie({
          collectionAuthConfig: req.payload.collections.users.config.auth,
          cookiePrefix: req.payload.config.cookiePrefix,
          token,
        })
        return Response.json(
          { message: req.t('authentication:passwordResetSuccessfully'), token, user },
          { headers: { 'Set-Cookie': cookie } },
        )
      },
    }),
    endpoint({
      path: '/verify/:token',
      method: 'post',
      handler: () => {
        throw notFound()
      },
    }),
  ]
  return { ...users, endpoints: [...endpoints, ...(Array.isArray(users.endpoints) ? users.endpoints : [])] }
}

// PATCH: payload-auth-routes
/**
 * The same three through GraphQL (`forgotPasswordUser`, `resetPasswordUser`, `verifyEmailUser`):
 * not found. Nothing in the admin or the site uses them; the REST routes above are the way.
 */
export const graphQLWithoutDuplicateAuth = (graphQL: Config['graphQL']): NonNullable<Config['graphQL']> => {
  const mutations = graphQL?.mutations
  return {
    ...graphQL,
    mutations: (library, context) => {
      const refused = (name: string) => {
        const existing = (context.Mutation.fields as Record<string, Record<string, unknown> | undefined>)[name]
        if (!existing)
          throw new Error(
            `GraphQL has no ${name} mutation to replace: Payload changed; see src/auth/payload-auth-routes.ts`,
          )
        return {
          ...existing,
          resolve: () => {
            throw new NotFound()
          },
        }
      }
      return {
        ...(mutations ? mutations(library, context) : {}),
        forgotPasswordUser: refused('forgotPasswordUser'),
        resetPasswordUser: refused('resetPasswordUser'),
        verifyEmailUser: refused('verifyEmailUser'),
      }
    },
  }
}

import type { Endpoint } from 'payload'
import { z } from 'zod'

import { type CodeHostProvider, repoAccessStatus, requestRepoAccess } from '../src/delivery/repo-access'
import { endpoint } from '../src/http/endpoint'

const SIGN_IN = 'Sign in first.'

/** POST /api/repo-access {username}: 200 {status, username}, status `pending` or `collaborator`. */
export const repoAccessPostEndpoint = (codeHost: CodeHostProvider): Endpoint =>
  endpoint({
    path: '/repo-access',
    method: 'post',
    auth: SIGN_IN,
    // The code host's username rules live with the operation (400 invalid_username), as the dashboard form uses it too.
    body: z.object({ username: z.unknown() }),
    handler: ({ req, body }) => requestRepoAccess(req, codeHost, body.username),
  })

/** GET /api/repo-access: 200 {status, username}; status `none` when nothing was requested. */
export const repoAccessGetEndpoint = (codeHost: CodeHostProvider): Endpoint =>
  endpoint({
    path: '/repo-access',
    method: 'get',
    auth: SIGN_IN,
    handler: async ({ req }) =>
      Response.json(await repoAccessStatus(req, codeHost), { headers: { 'Cache-Control': 'no-store' } }),
  })

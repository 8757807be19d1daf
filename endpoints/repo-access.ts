import type { Endpoint } from 'payload'

import { type CodeHostProvider, repoAccessStatus, requestRepoAccess } from '../src/delivery/repo-access'
import { errorResponse, ServiceError } from '../src/http/errors'
import { readJsonObject } from '../src/http/json'

/** POST /api/repo-access {username}: 200 {status, username}, status `pending` or `collaborator`. */
export const repoAccessPostEndpoint = (codeHost: CodeHostProvider): Endpoint => ({
  path: '/repo-access',
  method: 'post',
  handler: async (req) => {
    try {
      if (!req.user) throw new ServiceError(401, 'unauthenticated', 'Sign in first.')
      const body = await readJsonObject(req)
      return Response.json(await requestRepoAccess(req, codeHost, body.username))
    } catch (error) {
      return errorResponse(error)
    }
  },
})

/** GET /api/repo-access: 200 {status, username}; status `none` when nothing was requested. */
export const repoAccessGetEndpoint = (codeHost: CodeHostProvider): Endpoint => ({
  path: '/repo-access',
  method: 'get',
  handler: async (req) => {
    try {
      return Response.json(await repoAccessStatus(req, codeHost), { headers: { 'Cache-Control': 'no-store' } })
    } catch (error) {
      return errorResponse(error)
    }
  },
})

import http from 'node:http'

import express from 'express'

import { Accounts, DEFAULT_USERS } from './accounts'
import { apiRoutes } from './api-routes'
import { acceptInvitationOf, addCollaborator, inviteByHand, isCollaborator, roleOf } from './collaboration'
import type { CodeHost } from './context'
import { FailureRules } from '../common/failures'
import { authenticate, githubHeaders, recordRequests, unexpectedError, unknownUrl } from './middleware'
import { pages } from './pages'
import type { FailureRule, CodeHostStandIn, CodeHostStartOptions } from './types'
import { listenLocally } from '../common/listen'
import { failureBody } from './errors'
import { injectFailures } from '../common/inject-failures'

const buildApp = (
  host: CodeHost,
  fields: { failures: FailureRules<FailureRule>; token: string; log: (line: string) => void },
): express.Express => {
  const app = express()
  app.disable('x-powered-by')
  app.use(recordRequests(host, fields.log))
  app.use(githubHeaders(host))
  app.use(injectFailures(fields.failures, (status, headers) => failureBody(status, headers, host.owner.id)))
  app.use(express.json())
  app.use(pages(host))
  app.use(
    '/repos',
    authenticate((token) => token === fields.token),
  )
  // An invitee accepts with their own token, which the stand-in cannot know: any token is theirs.
  app.use(
    '/user',
    authenticate(() => true),
  )
  app.use(apiRoutes(host))
  app.use(unknownUrl)
  app.use(unexpectedError(fields.log))
  return app
}

/**
 * A GitHub-compatible HTTP server on 127.0.0.1 for tests and offline development: the real Octokit
 * talks to it with `{ auth: token, baseUrl: standIn.url }` to invite collaborators to one repository.
 */
export const startCodeHostStandIn = async (options: CodeHostStartOptions): Promise<CodeHostStandIn> => {
  const log = options.log ?? (() => undefined)
  const server = http.createServer()
  const port = await listenLocally(server, options.port ?? 0)
  const url = `http://127.0.0.1:${port}`
  const accounts = new Accounts(options.everyLoginExists ?? false)
  const owner = accounts.add(options.owner)
  for (const login of options.users ?? DEFAULT_USERS) accounts.add(login)
  let lastInvitationId = 0
  const host: CodeHost = {
    state: { invitations: new Map(), collaborators: new Set(), requests: [] },
    accounts,
    roles: new Map(),
    owner,
    repo: options.repo,
    url,
    now: options.now ?? (() => new Date()),
    nextInvitationId: () => ++lastInvitationId,
  }
  for (const seeded of options.collaborators ?? []) {
    const { login, role = 'maintain' } = typeof seeded === 'string' ? { login: seeded } : seeded
    addCollaborator(host, accounts.add(login), role)
  }
  const failures = new FailureRules<FailureRule>()
  server.on('request', buildApp(host, { failures, token: options.token, log }))
  log(`code host stand-in listening on ${url}`)

  return {
    url,
    port,
    close: async () => {
      failures.close()
      server.closeAllConnections()
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())))
    },
    addUser: (login) => {
      accounts.add(login)
    },
    accept: (login) => {
      if (!acceptInvitationOf(host, login)) throw new Error(`${login} has no pending invitation to accept`)
    },
    addCollaborator: (login, role = 'maintain') => {
      addCollaborator(host, accounts.add(login), role)
    },
    addInvitation: (login, role = 'write') => inviteByHand(host, accounts.add(login), role).id,
    roleOf: (login) => (isCollaborator(host, login) ? roleOf(host, login) : undefined),
    failNext: (rule) => failures.add(rule),
    clearFailures: () => failures.clear(),
    state: host.state,
  }
}

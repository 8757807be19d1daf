import http from 'node:http'

import express from 'express'

import { approvedRedirect, deniedRedirect, readAuthorizationRequest } from './authorization'
import type { DiscordHost } from './context'
import { generalError } from './errors'
import {
  addRole,
  addUser,
  byHand,
  DEFAULT_BOT_ROLE_POSITION,
  DEFAULT_ROLES,
  DEFAULT_USERS,
  giveRole,
  joinGuild,
  seedGuild,
  takeRole,
} from './guild'
import { guildRoutes } from './guild-routes'
import { errorHandler, recordRequests, unknownRoute } from './middleware'
import { roleObject } from './objects'
import { oauthRoutes } from './oauth-routes'
import { pages } from './pages'
import { rateLimitedAnswer, rateLimitHeaders } from './rate-limits'
import { FIXED_IDS, SNOWFLAKE, snowflakes } from './snowflakes'
import type { DiscordFailureRule, DiscordStandIn, DiscordStandInOptions } from './types'
import { FailureRules } from '../common/failures'
import { injectFailures, type InjectableRule } from '../common/inject-failures'
import { listenLocally } from '../common/listen'

/** A 429 rule brings Discord's rate-limit headers and body; any other status gets `<status>: <reason>`. */
const injectable = (rule: DiscordFailureRule): InjectableRule => {
  const { retryAfter = 1, global = false, ...rest } = rule
  return rule.status === 429 ? { ...rest, ...rateLimitedAnswer(retryAfter, global) } : rest
}

/** The authorization request in a URL the service sent the browser to, which must be this stand-in's page. */
const requestAt = (host: DiscordHost, authorizeUrl: string) => {
  const requested = new URL(authorizeUrl)
  if (`${requested.origin}${requested.pathname}` !== `${host.url}/oauth2/authorize`) {
    throw new Error(`${authorizeUrl} is not this stand-in's authorize page (${host.url}/oauth2/authorize)`)
  }
  return readAuthorizationRequest(host, requested.searchParams)
}

const buildApp = (host: DiscordHost, failures: FailureRules<InjectableRule>, log: (line: string) => void) => {
  const app = express()
  app.disable('x-powered-by')
  // Discord's API sends no ETag, so no client ever gets a 304 from it.
  app.disable('etag')
  app.use(recordRequests(host, log))
  app.use('/api', rateLimitHeaders(host))
  app.use(injectFailures(failures, (status) => generalError(status)))
  app.use(pages(host))
  // The OAuth2 endpoints answer with and without a version, as Discord's do (arctic uses `/api/oauth2/…`).
  app.use('/api/v10', express.json(), oauthRoutes(host), guildRoutes(host))
  app.use('/api', oauthRoutes(host))
  app.use(unknownRoute)
  app.use(errorHandler(log))
  return app
}

/**
 * A Discord-compatible HTTP server on 127.0.0.1 for tests and offline development of the "community
 * role" plan benefit: the service's OAuth2 client signs a user in (consent page, token, `users/@me`)
 * and its bot, through the real `@discordjs/rest` with `api: ${url}/api`, adds them to the guild and
 * gives or takes their roles.
 */
export const startDiscordStandIn = async (options: DiscordStandInOptions): Promise<DiscordStandIn> => {
  const log = options.log ?? (() => undefined)
  const now = options.now ?? (() => new Date())
  const server = http.createServer()
  const port = await listenLocally(server, options.port ?? 0)
  const url = `http://127.0.0.1:${port}`
  const host: DiscordHost = {
    url,
    guildId: options.guildId ?? FIXED_IDS.guild,
    // An application's bot user has the application's id, which is its OAuth2 client id.
    botUserId: SNOWFLAKE.test(options.clientId) ? options.clientId : FIXED_IDS.botUser,
    botRoleId: FIXED_IDS.botRole,
    app: {
      clientId: options.clientId,
      clientSecret: options.clientSecret,
      name: options.appName ?? 'Stand-in App',
      redirectUris: new Set(options.redirectUris ?? []),
    },
    botToken: options.botToken,
    users: new Map(),
    roles: new Map(),
    members: new Map(),
    codes: new Map(),
    accessTokens: new Map(),
    refreshTokens: new Map(),
    issuedAccessTokens: [],
    requests: [],
    now,
    nextId: snowflakes(now),
  }
  seedGuild(host, {
    users: options.users ?? DEFAULT_USERS,
    roles: options.roles ?? DEFAULT_ROLES,
    botRolePosition: options.botRolePosition ?? DEFAULT_BOT_ROLE_POSITION,
  })
  const failures = new FailureRules<InjectableRule>()
  server.on('request', buildApp(host, failures, log))
  log(`Discord stand-in listening on ${url}`)

  return {
    url,
    port,
    apiUrl: `${url}/api/v10`,
    authorizeUrl: `${url}/oauth2/authorize`,
    guildId: host.guildId,
    botUserId: host.botUserId,
    addUser: (seed) => {
      const { id, username } = addUser(host, seed)
      return { id, username }
    },
    addRole: (seed) => roleObject(host, addRole(host, seed)),
    // Promises whatever happens: a refusal is a rejection, as the real page's 400 is.
    approve: (authorizeUrl, userId) =>
      Promise.resolve().then(() => approvedRedirect(host, requestAt(host, authorizeUrl), userId)),
    deny: (authorizeUrl) => Promise.resolve().then(() => deniedRedirect(requestAt(host, authorizeUrl))),
    registerRedirectUri: (uri) => {
      host.app.redirectUris.add(uri)
    },
    member: (userId) => {
      const member = host.members.get(userId)
      return member ? { roles: [...member.roles], joinedAt: member.joinedAt.toISOString() } : null
    },
    removeRoleByHand: (userId, roleId) => takeRole(byHand.member(host, userId), byHand.role(host, roleId).id),
    addRoleByHand: (userId, roleId) => giveRole(byHand.member(host, userId), byHand.role(host, roleId).id),
    leaveGuild: (userId) => {
      byHand.member(host, userId)
      host.members.delete(userId)
    },
    addMember: (userId, roles = []) => {
      byHand.user(host, userId)
      if (host.members.has(userId)) throw new Error(`${userId} is a member already`)
      joinGuild(
        host,
        userId,
        roles.map((roleId) => byHand.role(host, roleId).id),
      )
    },
    issuedAccessTokens: host.issuedAccessTokens,
    requests: host.requests,
    clearRequests: () => {
      host.requests.length = 0
    },
    failNext: (rule) => failures.add(injectable(rule)),
    clearFailures: () => failures.clear(),
    setBotToken: (token) => {
      host.botToken = token
    },
    close: async () => {
      failures.close()
      server.closeAllConnections()
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())))
    },
  }
}
